#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

/// The Windows user's %UserProfile%\.wslconfig (seen from WSL2 as /mnt/c/Users/<name>/.wslconfig):
/// an INI file whose [wsl2] section sets the virtual machine's limits, e.g. `memory=8GB`.
namespace cudoctor::formats {

struct WslMemoryLimit {
    std::uint64_t bytes = 0;  ///< the limit in bytes
    std::string text;         ///< the value as written ("8GB")
    std::size_t line = 0;     ///< 1-based line of the `memory=` key
};

/// The [wsl2] section's `memory` (section and key case-insensitive, spaces around '=' allowed,
/// '#' and ';' start comments; a size in B, KB, MB, GB or TB — a bare number is bytes — as WSL
/// reads it). The last assignment wins. nullopt without one, or when its value is no size.
std::optional<WslMemoryLimit> parse_wslconfig_memory(std::string_view text);

}  // namespace cudoctor::formats
