#pragma once
// The snapshot's time stamp: UTC ISO-8601 with seconds and a trailing Z ("2024-06-12T06:41:26Z"),
// written by the probe and read back by `fleet` to tell stale snapshots.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cudoctor::snapshot {

/// Seconds since the epoch as "YYYY-MM-DDTHH:MM:SSZ" (UTC).
std::string format_utc(std::int64_t epoch_seconds);

/// Seconds since the epoch of "YYYY-MM-DDTHH:MM:SSZ" (fractional seconds ".123" and a "+00:00"
/// suffix are also accepted). nullopt for anything else: another offset, a missing field, an
/// out-of-range month/day/hour, trailing text, or a year outside 1970–9999.
std::optional<std::int64_t> parse_utc(std::string_view text);

}  // namespace cudoctor::snapshot
