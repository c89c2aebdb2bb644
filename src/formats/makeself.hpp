#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

/// makeself self-extracting archives (`.run`), reference: formats.md section 2. The header is a
/// shell script; it is read here as text (`name=value` lines), never run.
namespace cudoctor::formats {

/// Which generator wrote the header: upstream makeself (megastep, 2.x; CUDA toolkit runfiles and
/// most others) or NVIDIA's fork "makeself 1.6.0-nv…" (NVIDIA driver runfiles).
enum class MakeselfFamily { upstream, nvidia_fork };

/// How the payload is compressed, from the header's decompression command.
enum class PayloadCompression { none, gzip, xz, bzip2, zstd, other };

/// "upstream", "nvidia-fork".
const char* to_string(MakeselfFamily f);
/// "none", "gzip", "xz", "bzip2", "zstd", "other".
const char* to_string(PayloadCompression c);

/// One payload's declared size and sums (upstream: one per `filesizes` entry). An absent sum
/// (all zeros in the header, or no field) is nullopt.
struct MakeselfPayload {
    std::uint64_t offset = 0;           ///< file offset of the payload's first byte
    std::optional<std::uint64_t> size;  ///< declared size in bytes; nullopt: to the end of the file
    std::optional<std::string> md5;     ///< 32 lower-case hex digits
    std::optional<std::string> sha256;  ///< 64 lower-case hex digits
    std::optional<std::uint32_t> crc;   ///< POSIX cksum CRC
};

/// Everything the header says about the bytes after it.
struct MakeselfHeader {
    MakeselfFamily family = MakeselfFamily::upstream;
    std::string makeself_version;      ///< "2.4.5", "1.6.0-nv2"; "" when the banner names none
    std::string label;                 ///< `label="…"`
    std::string script;                ///< `script=…`, the program run after unpacking
    std::string target_dir;            ///< `targetdir=…`
    std::string version_string;        ///< NVIDIA fork `version_string=…` (driver version), else ""
    std::string target_arch;           ///< NVIDIA fork `TARGET_ARCH=…`, else ""
    std::uint64_t header_lines = 0;    ///< lines before the (first) payload
    std::uint64_t payload_offset = 0;  ///< byte offset of the first payload
    /// Upstream: one entry per `filesizes` value. NVIDIA fork (and an upstream header without
    /// `filesizes`): one entry without a size, running to the end of the file.
    std::vector<MakeselfPayload> payloads;
    std::optional<std::uint64_t> total_size;        ///< `totalsize=` (upstream 2.4.x)
    std::optional<std::uint64_t> uncompressed_kib;  ///< "Uncompressed size: N KB" from --info text
    std::string decompress_command;                 ///< "gzip -cd", "xz -d", "cat"; "" when not found
    PayloadCompression compression = PayloadCompression::other;
    /// NVIDIA fork: CRC and MD5 cover every byte from this offset (after line 3) to the end of
    /// the file, header tail included. nullopt for upstream (sums cover each payload).
    std::optional<std::uint64_t> fork_checksum_offset;
    std::optional<std::uint32_t> fork_crc;  ///< NVIDIA fork `CRCsum=`
    std::optional<std::string> fork_md5;    ///< NVIDIA fork `MD5=` (nullopt when all zeros)
};

/// The largest header this parser reads: real ones are 15–40 KiB.
inline constexpr std::size_t kMakeselfHeaderCap = 1u << 20;

/// Parses the header of a makeself archive from the file's first bytes (`head`: up to
/// kMakeselfHeaderCap; more is ignored). `file_is_whole` says `head` is the entire file.
/// Errors, each with a one-line message:
///  - Errc::parse "not a makeself archive: …" when there is no `#!` line or no "Makeself" banner
///    in the first 200 lines;
///  - Errc::parse "makeself header is corrupt: …" for a skip/size/sum value that is not a number,
///    overflows, or is absurd (header over 1 MiB, a payload over 1 PiB, `totalsize` ≠ the sum of
///    `filesizes`, a sum of the wrong length);
///  - Errc::truncated "… the file ends inside the makeself header …" when `file_is_whole` and the
///    header's line count is not reached;
///  - Errc::too_large when the header is longer than `head` although the file is not.
/// Never throws.
Expected<MakeselfHeader> parse_makeself_header(std::string_view head, bool file_is_whole);

/// POSIX `cksum` CRC of `bytes` (as makeself stores in `CRCsum`), including the length suffix:
/// continue a running computation with cksum_update, close it with cksum_finish.
std::uint32_t cksum_update(std::uint32_t crc, std::string_view bytes);
std::uint32_t cksum_finish(std::uint32_t crc, std::uint64_t length);

}  // namespace cudoctor::formats
