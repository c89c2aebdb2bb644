#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

/// modprobe configuration (/etc/modprobe.d/*.conf and friends, modprobe.d(5)).
namespace cudoctor::formats {

/// The commands of one modprobe.d file that matter for driver conflicts (nouveau vs nvidia).
/// Module names are normalised as modprobe does: '-' becomes '_' ("nvidia-drm" → "nvidia_drm").
struct ModprobeConf {
    std::vector<std::string> blacklisted;                       ///< "blacklist nouveau" → "nouveau"
    std::vector<std::pair<std::string, std::string>> options;   ///< {"nouveau", "modeset=0"}: module, rest of line
    std::vector<std::pair<std::string, std::string>> aliases;   ///< {"nouveau", "off"}: alias pattern, module
    std::vector<std::pair<std::string, std::string>> installs;  ///< {"nouveau", "/bin/false"}: module, command
};

/// Parses modprobe.d text: "blacklist MODULE", "options MODULE OPTS…", "alias PATTERN MODULE",
/// "install MODULE COMMAND…"; a trailing backslash joins the next line; lines whose first word
/// starts with '#' are comments. Unknown commands (remove, softdep, …) and commands missing
/// their arguments are ignored. Never fails.
ModprobeConf parse_modprobe_conf(std::string_view text);

}  // namespace cudoctor::formats
