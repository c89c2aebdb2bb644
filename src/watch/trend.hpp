#pragma once
// The memory trend of one series (a process's or a GPU's memory over time): is it a leak, flat,
// or the sawtooth of a caching allocator that frees and refills? Pure arithmetic, no I/O.
//
//   * a sawtooth: two or more sharp drops (each at least a quarter of the series' range and 16 MiB). Its
//     raw slope says nothing (it depends on where the window cuts a tooth), so the verdict is
//     read from the troughs after each drop: troughs that climb are a leak under the sawtooth,
//     level troughs are the allocator doing its job.
//   * otherwise: the last regime is found (a warm-up, then a flat stretch, then growth: the
//     series is split where two lines explain it far better than one, F > 20, and the right
//     part split again), and a least-squares line is fitted there. Its standard error is widened for the
//     autocorrelation of the residuals (samples a few seconds apart are not independent), and a
//     leak needs the 95 % interval above zero, a robust (Theil–Sen) slope that agrees, and a
//     growth over the window that matters (at least 8 MiB and 2 % of the level).
#include <cstddef>
#include <span>
#include <string>
#include "report/style.hpp"

namespace cudoctor::watch {

/// One sample: seconds since the watch began, and bytes.
struct Point {
    double t = 0;
    double y = 0;
};

enum class TrendVerdict { too_short, flat, leak, shrinking, sawtooth };

/// "too-short", "flat", "leak", "shrinking", "sawtooth".
const char* to_string(TrendVerdict verdict);

struct Trend {
    TrendVerdict verdict = TrendVerdict::too_short;
    std::size_t samples = 0;
    double slope = 0;                               ///< bytes per second of the fitted line (of the troughs for a sawtooth)
    double slope_stderr = 0;                        ///< its standard error, widened for autocorrelation (0 when unknown)
    double ci_low = 0, ci_high = 0;                 ///< 95 % interval of the slope, bytes per second
    double robust_slope = 0;                        ///< Theil–Sen slope of the same window, bytes per second
    double since = 0;                               ///< start of the window the verdict is read from, seconds
    double until = 0;                               ///< last sample, seconds
    double first = 0, last = 0, low = 0, high = 0;  ///< bytes: first and last sample, min and max
    double window_first = 0;                        ///< bytes: the first sample of the window the verdict is read from
    std::size_t drops = 0;                          ///< sharp drops seen (a sawtooth has two or more)
    std::string reason;                             ///< one line: why this verdict
};

/// The verdict for `points` (sorted by t; unsorted input is sorted first). Fewer than 8 samples,
/// or a series shorter than 3 intervals, is too_short. Never fails; NaN or infinite values are
/// dropped first.
[[nodiscard]] Trend analyse_memory(std::span<const Point> input);

/// "+38.0 MiB/hour, steady since 00:40", "flat (±0.4 MiB/hour) at 2.0 GiB", "sawtooth 3.0–7.0 GiB,
/// troughs level (not a leak)", "too short to tell (5 samples)".
[[nodiscard]] std::string describe(const Trend& trend);

/// "1.5 GiB", "380 MiB", "12 KiB": report::bytes_text's significant style.
[[nodiscard]] inline std::string bytes_text(double bytes) { return report::bytes_text(bytes, report::ByteStyle::significant); }
/// "00:40", "26:05" (hours:minutes of a duration in seconds; from 1 s to a minute the seconds: "0:07").
[[nodiscard]] std::string clock_text(double seconds);

}  // namespace cudoctor::watch
