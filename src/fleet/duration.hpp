#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace cudoctor::fleet {

/// In whole seconds, by the one duration grammar (common/duration.hpp): "7d", "36h", "3d12h",
/// "1.5d", "45m", "90s", "1w", or a bare number of seconds; "0" is zero. nullopt for anything
/// else (a negative, an unknown unit, an overflow past 100 years).
std::optional<std::int64_t> parse_duration(std::string_view text);

}  // namespace cudoctor::fleet
