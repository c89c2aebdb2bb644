#pragma once
// `cudoctor verify-installer`: is this downloaded .run / .tar.xz / .deb whole and genuine,
// before anything runs it. Checks in order of cheapness: what the file is, what its name says,
// size against what the header declares, the FAT32 cut, free space, then one read of the whole
// file for every digest and the decompression check, then the user's --sha256/--md5.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "formats/file_kind.hpp"
#include "formats/installer_name.hpp"
#include "formats/makeself.hpp"
#include "installer/single_pass.hpp"

namespace cudoctor::installer {

using formats::InstallerName;
using formats::official_url;
using formats::read_installer_name;

/// The one answer, most specific cause first.
enum class Verdict {
    good,              ///< whole and consistent (and matching --sha256/--md5 when given)
    empty,             ///< zero bytes
    error_page,        ///< an HTML/XML/JSON/text page saved under the installer's name
    not_an_installer,  ///< an ELF, zip, plain script or unknown bytes
    header_corrupt,    ///< a makeself header with impossible values
    truncated,         ///< shorter than declared, or a stream that stops before its end
    fat32_cut,         ///< cut at 4 GiB − 1 bytes (a FAT32 copy)
    too_long,          ///< bytes after the declared end
    corrupt,           ///< the archive's own sums or its compressed stream disagree with the bytes
    digest_mismatch,   ///< self-consistent, but not the file whose --sha256/--md5 was given
    unreadable,        ///< a read error part way (a failing disk, a vanished network mount)
};

/// "good", "empty", "error-page", "not-an-installer", "header-corrupt", "truncated",
/// "fat32-cut", "too-long", "corrupt", "digest-mismatch", "unreadable".
const char* to_string(Verdict v);

enum class CheckStatus { ok, bad, warning, skipped, info };
/// "ok", "bad", "warning", "skipped", "info".
const char* to_string(CheckStatus s);

/// One line of the report.
struct Check {
    std::string name;  ///< "kind", "name", "size", "fat32", "space", "md5", "sha256", "crc", "stream", "user-sha256", …
    CheckStatus status = CheckStatus::info;
    std::string message;
};

/// A checksum the knowledge base has for this file's name (installer_checksums.tsv).
struct KnownChecksum {
    std::string sha256;  ///< hex, or "" (then md5)
    std::string md5;     ///< hex, or ""
    std::string source;  ///< where it was published ("spack-packages cuda/package.py")
};

struct VerifyOptions {
    std::string path;
    std::optional<std::string> sha256;            ///< expected SHA-256 of the whole file (hex)
    std::optional<std::string> md5;               ///< expected MD5 of the whole file (hex)
    std::optional<KnownChecksum> known;           ///< the published checksum of a file of this name
    std::string unpack_dir = "/tmp";              ///< where an installer unpacks ($TMPDIR)
    std::optional<std::string> fs_type_override;  ///< pretend the file sits on this fs (test seam)
    unsigned threads = 0;                         ///< decoder threads for xz; 0: the machine's cores
};

struct VerifyReport {
    std::string path;
    std::uint64_t size = 0;
    formats::FileKind kind = formats::FileKind::binary;
    std::string kind_text;  ///< "a makeself self-extracting archive (\"CUDA Installer\", makeself 2.4.5)"
    std::optional<formats::MakeselfHeader> makeself;
    InstallerName name;
    std::vector<Check> checks;
    Verdict verdict = Verdict::good;
    std::string summary;             ///< one line: the verdict in words
    std::vector<std::string> fixes;  ///< exact commands or steps, most useful first
    std::uint64_t bytes_read = 0;    ///< by the single pass (0 when it was not needed)
    double pass_seconds = 0;

    bool is_good() const { return verdict == Verdict::good; }
};

/// Verifies the file at `options.path` (read directly: a file named on the command line, not a
/// machine probe). Errors (usage, exit 2): Errc::not_found when it does not exist, Errc::io when
/// it is not a regular file or cannot be opened, Errc::usage for a --sha256/--md5 that is not
/// hex of the right length. Every problem with the file itself is a Verdict, not an error.
Expected<VerifyReport> verify_installer(const VerifyOptions& options, const ProgressFn& progress = {});

}  // namespace cudoctor::installer
