#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.hpp"

/// What a file is, from its first bytes: the installer kinds cudoctor verifies and the things a
/// failed download leaves under an installer's name (an HTML or XML error page, JSON, nothing).
namespace cudoctor::formats {

enum class FileKind {
    empty,         ///< zero bytes
    makeself,      ///< a "#!" shell script with a Makeself banner (a `.run` installer)
    shell_script,  ///< a "#!" script without one
    html,          ///< "<!DOCTYPE html", "<html" (a web server's error or login page)
    xml,           ///< "<?xml", "<Error>" (an S3/CDN error document)
    json,          ///< "{" or "[" (an API error)
    text,          ///< other printable text
    gzip,
    xz,
    bzip2,
    zstd,
    tar,  ///< an uncompressed tar ("ustar" at byte 257)
    deb,  ///< an ar archive whose first member is "debian-binary"
    ar,   ///< another ar archive ("!<arch>\n")
    elf,
    zip,
    binary,  ///< none of the above
};

/// "empty", "makeself", "shell-script", "html", "xml", "json", "text", "gzip", "xz", "bzip2",
/// "zstd", "tar", "deb", "ar", "elf", "zip", "binary".
const char* to_string(FileKind kind);

/// In the user's words: "a makeself self-extracting archive", "an HTML page", "an xz stream", …
const char* describe(FileKind kind);

/// The kind of a file whose first bytes are `head` (pass at least 64 KiB when the file has them:
/// the makeself banner may sit a few lines down; "ustar" needs 263 bytes). Any input is valid:
/// unknown bytes are FileKind::binary, an empty view FileKind::empty. Never throws.
FileKind detect_file_kind(std::string_view head);

/// One line saying what a text page is about, for the verdict: an HTML <title>, an XML error's
/// <Code> and <Message>, a JSON "message"/"error" value, else the first non-empty line; control
/// bytes replaced, cut at 120 characters. "" when nothing printable is found.
std::string text_excerpt(std::string_view head);

/// An ar archive's global header is "!<arch>\n"; each member has a 60-byte header before its
/// data, and the data is padded to an even length.
inline constexpr std::string_view kArMagic = "!<arch>\n";
inline constexpr std::size_t kArMemberHeaderSize = 60;

/// One member header of an ar archive (a .deb): the name (trailing spaces and the GNU '/'
/// removed) and the data size.
struct ArMember {
    std::string name;
    std::uint64_t size = 0;
};

/// Parses the 60-byte ar member header at the start of `bytes`. Errors: Errc::truncated when
/// fewer than 60 bytes are given; Errc::parse when the terminator is not "`\n" or the size field
/// is not a decimal number (it may not exceed 10 digits). Never throws.
Expected<ArMember> parse_ar_member_header(std::string_view bytes);

}  // namespace cudoctor::formats
