#pragma once
// One grammar for every duration option (watch --interval/--duration/--timeout, fleet
// --stale-after, verify --timeout): a number and a unit, or several in a row.
#include <chrono>
#include <optional>
#include <string_view>

namespace cudoctor {

/// "10s", "250ms", "5m", "5min", "1.5h", "1h30m", "3d12h", "1.5d", "1w"; a bare number alone is
/// seconds ("90", "0.5"). Units: ms, s, m|min, h, d, w. nullopt for anything else: a sign, an
/// unknown unit, a unit-less tail after a unit ("3d12"), more than 100 years.
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);

}  // namespace cudoctor
