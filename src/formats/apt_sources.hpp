#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

/// apt's configuration files: the package sources (/etc/apt/sources.list and sources.list.d/*.list
/// in the one-line format, sources.list.d/*.sources in the deb822 format) and the preferences
/// (/etc/apt/preferences, preferences.d/*: pins).
namespace cudoctor::formats {

/// One repository an apt source names: one line of a .list file, or one URI x suite of a deb822
/// stanza.
struct AptSourceEntry {
    int line = 0;                         ///< 1-based: the line (one-line format) or the stanza's first line
    std::string type;                     ///< "deb" | "deb-src"
    std::string uri;                      ///< "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/"
    std::string suite;                    ///< "/" (a flat repository), "jammy"
    std::vector<std::string> components;  ///< "main", "restricted"; none for a flat repository
    /// The signed-by option: a keyring path (or fingerprints) as written; "" when absent or when
    /// deb822's Signed-By holds an embedded key block (then `signed_by_inline`).
    std::string signed_by;
    bool signed_by_inline = false;
    bool enabled = true;  ///< deb822 "Enabled: no" disables a stanza (a commented .list line is no entry)
};

/// Parses a one-line-format sources file: "deb [opt=val ...] URI SUITE [COMPONENT...]", '#'
/// comments (whole line or trailing), blank lines skipped, LF or CRLF. A line whose type is not
/// deb/deb-src, or that lacks URI or suite, or whose '[' has no ']', is skipped. Never fails.
std::vector<AptSourceEntry> parse_apt_sources_list(std::string_view text);

/// Parses a deb822 .sources file: stanzas of "Field: value" separated by blank lines, fields
/// case-insensitive, continuation lines (leading space or TAB) belong to the field before them,
/// '#' comment lines skipped. Types, URIs and Suites may list several values: one entry per
/// type x URI x suite. A stanza without Types, URIs or Suites is skipped; "Enabled: no" (or
/// "false", "0") disables it. Never fails; at most `kMaxAptEntries` entries.
std::vector<AptSourceEntry> parse_apt_sources_deb822(std::string_view text);

/// The most entries one file gives (a stanza of many URIs x many suites cannot blow up memory).
inline constexpr std::size_t kMaxAptEntries = 4096;

/// One stanza of apt_preferences(5).
struct AptPreference {
    int line = 0;                 ///< 1-based first line of the stanza
    std::string package;          ///< Package: as written ("nvidia-*", "*", "cuda-drivers nvidia-driver-535")
    std::string pin;              ///< Pin: as written ("version 535.*", "release l=NVIDIA CUDA", "origin *ubuntu.com*")
    std::optional<int> priority;  ///< Pin-Priority; nullopt when absent or not a number
};

/// Parses /etc/apt/preferences or a preferences.d file: stanzas separated by blank lines, fields
/// case-insensitive, '#' comment lines and "Explanation:" skipped. A stanza without Package or Pin
/// is dropped. Never fails; at most `kMaxAptEntries` stanzas.
std::vector<AptPreference> parse_apt_preferences(std::string_view text);

/// NVIDIA's CUDA repository a source URI names: "ubuntu2204" of
/// http(s)://developer.download.nvidia.com/compute/cuda/repos/<repo>/<arch>[/] (repo of
/// [A-Za-z0-9._-], arch of [A-Za-z0-9_]); "" for any other URI.
std::string nvidia_cuda_repo_of(std::string_view uri);

/// A local repository NVIDIA's local .deb installs: file:[//]/var/<name>[/] where name is
/// cuda-repo-<tag>-<major>-<minor>-local (tag of [a-z0-9-], so it may hold hyphens:
/// cuda-repo-wsl-ubuntu-12-4-local).
struct LocalCudaRepo {
    std::string name;     ///< "cuda-repo-ubuntu2204-12-4-local"
    std::string release;  ///< "12.4"
};
/// nullopt for any other URI.
std::optional<LocalCudaRepo> local_cuda_repo_of(std::string_view uri);

}  // namespace cudoctor::formats
