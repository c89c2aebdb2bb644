#pragma once
// The digests an installer carries or a user gives: MD5 and SHA-256 (OpenSSL) and makeself's
// POSIX cksum CRC, each over a byte range of the file, computed during the single pass.
#include <memory>
#include <string>

#include "installer/single_pass.hpp"

namespace cudoctor::installer {

enum class DigestKind { md5, sha256, cksum };

/// "MD5", "SHA-256", "CRC (cksum)".
const char* to_string(DigestKind kind);

/// A digest of bytes [begin, end) (end nullopt: to the end of the file).
class DigestSink final : public RangeSink {
  public:
    DigestSink(DigestKind kind, std::uint64_t begin, std::optional<std::uint64_t> end);
    ~DigestSink() override;
    DigestKind kind() const { return m_kind; }
    /// Lower-case hex for MD5/SHA-256, the decimal number for cksum; "" until the pass ended.
    const std::string& value() const { return m_value; }
    /// False when the file ended before the range did (the value is then of fewer bytes).
    bool complete() const { return m_complete; }
    std::uint64_t bytes() const { return seen(); }

  private:
    void on_bytes(std::string_view bytes) override;
    void on_end(bool complete) override;

    DigestKind m_kind;
    struct Evp;
    std::unique_ptr<Evp> m_evp;
    std::uint32_t m_crc = 0;
    std::string m_value;
    bool m_complete = false;
};

/// True when `hex` is 32 (MD5) or 64 (SHA-256) hex digits; case is ignored.
bool is_hex_digest(std::string_view hex, DigestKind kind);

}  // namespace cudoctor::installer
