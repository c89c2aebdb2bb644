#pragma once
// update-alternatives' own records: /var/lib/dpkg/alternatives/<name> (status, the generic link,
// slave links, then each choice with its priority) and the /etc/alternatives/<name> link.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "host/host.hpp"

namespace cudoctor::toolkits {

struct AltChoice {
    std::string path;                      ///< "/usr/local/cuda-12.4"
    long priority = 0;                     ///< 124
    std::vector<std::string> slave_paths;  ///< one per slave link ("" when the choice has none)
};

struct Alternative {
    std::string name;                                         ///< "cuda"
    std::string status;                                       ///< "auto" | "manual"
    std::string link;                                         ///< "/usr/local/cuda"
    std::vector<std::pair<std::string, std::string>> slaves;  ///< (name, link)
    std::vector<AltChoice> choices;
    std::string current;  ///< what /etc/alternatives/<name> points to ("" when unknown)

    /// The choice update-alternatives picks in auto mode: the highest priority (first on ties).
    const AltChoice* best() const;
};

/// Parses an admin file. Errc::parse when the status is neither "auto" nor "manual", the link is
/// not absolute, or a priority is not a number. Pure; never reads past the text.
Expected<Alternative> parse_alternative(std::string_view name, std::string_view text);
/// The admin file text for `alt`, as update-alternatives writes it.
std::string format_alternative(const Alternative& alt);

/// Every /var/lib/dpkg/alternatives/cuda* group on the machine, with its current link target.
/// Unreadable or malformed files are skipped.
std::vector<Alternative> read_cuda_alternatives(const host::Host& host);

}  // namespace cudoctor::toolkits
