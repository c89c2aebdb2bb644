#include "installer/digest_sinks.hpp"

#include <openssl/evp.h>
#include <openssl/opensslv.h>

#include <stdexcept>
#include <string>

#include "common/shared_library.hpp"
#include "formats/makeself.hpp"

namespace cudoctor::installer {
// Named, not anonymous: DigestSink::Evp holds a Libcrypto (GCC's -Wsubobject-linkage).
namespace digest_libcrypto {

// OpenSSL keeps its ABI within a major release, and names the library after it.
static_assert(OPENSSL_VERSION_MAJOR >= 3, "libcrypto.so.<major> is OpenSSL 3's naming");
constexpr const char* kLibcrypto = CUDOCTOR_SONAME("libcrypto", OPENSSL_VERSION_MAJOR);

/// The part of libcrypto a digest needs, opened on the first digest, not at every start:
/// libcrypto is linked with BIND_NOW, and binding its ~3,000 symbols cost every `cudoctor` run,
/// `check` included, 3.7 M instructions before main() (callgrind), for what only
/// verify-installer uses (common/shared_library.hpp).
struct Libcrypto {
    decltype(&EVP_MD_CTX_new) md_ctx_new = nullptr;
    decltype(&EVP_MD_CTX_free) md_ctx_free = nullptr;
    decltype(&EVP_md5) md5 = nullptr;
    decltype(&EVP_sha256) sha256 = nullptr;
    decltype(&EVP_DigestInit_ex) digest_init = nullptr;
    decltype(&EVP_DigestUpdate) digest_update = nullptr;
    decltype(&EVP_DigestFinal_ex) digest_final = nullptr;
    std::string error;  ///< why it is unusable ("" when every function was found)
};

const Libcrypto& libcrypto() {
    static const Libcrypto loaded = SharedLibrary::open<Libcrypto>(kLibcrypto, [](SharedLibrary& lib, Libcrypto& c) {
        lib.bind("EVP_MD_CTX_new", c.md_ctx_new);
        lib.bind("EVP_MD_CTX_free", c.md_ctx_free);
        lib.bind("EVP_md5", c.md5);
        lib.bind("EVP_sha256", c.sha256);
        lib.bind("EVP_DigestInit_ex", c.digest_init);
        lib.bind("EVP_DigestUpdate", c.digest_update);
        lib.bind("EVP_DigestFinal_ex", c.digest_final);
    });
    return loaded;
}

}  // namespace digest_libcrypto

using digest_libcrypto::Libcrypto;

struct DigestSink::Evp {
    explicit Evp(const Libcrypto& c) : crypto(c), ctx(c.md_ctx_new()) {}
    ~Evp() { crypto.md_ctx_free(ctx); }
    const Libcrypto& crypto;
    EVP_MD_CTX* ctx;
};

const char* to_string(DigestKind kind) {
    switch (kind) {
        case DigestKind::md5: return "MD5";
        case DigestKind::sha256: return "SHA-256";
        case DigestKind::cksum: break;
    }
    return "CRC (cksum)";
}

DigestSink::DigestSink(DigestKind kind, std::uint64_t begin, std::optional<std::uint64_t> end) : RangeSink(begin, end), m_kind(kind) {
    if (kind == DigestKind::cksum) return;
    const auto& crypto = digest_libcrypto::libcrypto();
    if (!crypto.error.empty())
        throw std::runtime_error(std::string("OpenSSL cannot start a ") + to_string(kind) + " digest: " + crypto.error);
    m_evp = std::make_unique<Evp>(crypto);
    const EVP_MD* md = kind == DigestKind::md5 ? crypto.md5() : crypto.sha256();
    if (!m_evp->ctx || crypto.digest_init(m_evp->ctx, md, nullptr) != 1)
        throw std::runtime_error(std::string("OpenSSL cannot start a ") + to_string(kind) + " digest");
}

DigestSink::~DigestSink() = default;

void DigestSink::on_bytes(std::string_view bytes) {
    if (m_kind == DigestKind::cksum) m_crc = formats::cksum_update(m_crc, bytes);
    else m_evp->crypto.digest_update(m_evp->ctx, bytes.data(), bytes.size());
}

void DigestSink::on_end(bool complete) {
    m_complete = complete;
    if (m_kind == DigestKind::cksum) {
        m_value = std::to_string(formats::cksum_finish(m_crc, seen()));
        return;
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    m_evp->crypto.digest_final(m_evp->ctx, digest, &length);
    static const char* hex = "0123456789abcdef";
    m_value.clear();
    for (unsigned int i = 0; i < length; ++i) {
        m_value += hex[digest[i] >> 4];
        m_value += hex[digest[i] & 15];
    }
}

bool is_hex_digest(std::string_view hex, DigestKind kind) {
    const std::size_t want = kind == DigestKind::md5 ? 32 : kind == DigestKind::sha256 ? 64 : 0;
    return want && hex.size() == want && hex.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
}

}  // namespace cudoctor::installer
