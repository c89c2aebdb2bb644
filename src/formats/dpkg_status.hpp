#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

/// dpkg's database of installed packages, /var/lib/dpkg/status.
namespace cudoctor::formats {

/// One stanza of the status file, only the fields the doctor uses.
struct DpkgPackage {
    std::string name;          ///< Package: "libc6"
    std::string version;       ///< Version: "2.36-9+deb12u14"
    std::string architecture;  ///< Architecture: "amd64", "all"
    std::string status;        ///< Status: "install ok installed"
    std::string source;        ///< Source: the source package's name, "glibc" from "glibc (2.36-9)"; empty when absent

    /// True when the status ends with " installed" (not "config-files", "half-installed", …).
    bool installed() const;
    /// True when the selection is "hold" ("hold ok installed"): `apt-mark hold` keeps apt from
    /// upgrading or removing it.
    bool held() const;
};

/// Parses /var/lib/dpkg/status: stanzas of "Field: value" lines separated by blank lines
/// (whitespace-only lines count as blank), field names matched case-insensitively, continuation
/// lines (starting with space or TAB) and comment lines ('#') skipped, LF or CRLF. A stanza without a Package field is
/// dropped; lines without ':' are ignored. Never fails; linear in the input, no allocation per line.
std::vector<DpkgPackage> parse_dpkg_status(std::string_view text);

/// One stanza as views into the text it was read from: the fields parse_dpkg_status() keeps,
/// with the same values.
struct DpkgStanzaView {
    std::string_view name, version, architecture, status, source;

    bool installed() const { return status.ends_with(" installed"); }
    bool held() const { return status.starts_with("hold "); }
};

/// Calls `each` for every package parse_dpkg_status() returns, in the same order and with the
/// same fields, without building them: dpkg's status file of a desktop holds thousands of
/// stanzas of which a probe keeps a few fields. The views live as long as `text`.
void for_each_dpkg_package(std::string_view text, const std::function<void(const DpkgStanzaView&)>& each);

}  // namespace cudoctor::formats
