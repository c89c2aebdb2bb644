#include "installer/digest_sinks.hpp"

#include <openssl/evp.h>

#include <stdexcept>

#include "formats/makeself.hpp"

namespace cudoctor::installer {

struct DigestSink::Evp {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    ~Evp() { EVP_MD_CTX_free(ctx); }
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
    m_evp = std::make_unique<Evp>();
    const EVP_MD* md = kind == DigestKind::md5 ? EVP_md5() : EVP_sha256();
    if (!m_evp->ctx || EVP_DigestInit_ex(m_evp->ctx, md, nullptr) != 1)
        throw std::runtime_error(std::string("OpenSSL cannot start a ") + to_string(kind) + " digest");
}

DigestSink::~DigestSink() = default;

void DigestSink::on_bytes(std::string_view bytes) {
    if (m_kind == DigestKind::cksum) m_crc = formats::cksum_update(m_crc, bytes);
    else EVP_DigestUpdate(m_evp->ctx, bytes.data(), bytes.size());
}

void DigestSink::on_end(bool complete) {
    m_complete = complete;
    if (m_kind == DigestKind::cksum) {
        m_value = std::to_string(formats::cksum_finish(m_crc, seen()));
        return;
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(m_evp->ctx, digest, &length);
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
