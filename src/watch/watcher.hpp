#pragma once
// The watch loop: every interval one NVML sample (isolated child), its rows appended to the
// watch folder, new driver reports from the kernel log, the launched command's output moved and
// scanned; until the duration, the watched process's or command's end, or SIGINT/SIGTERM/SIGHUP.
#include <chrono>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "host/host.hpp"
#include "watch/reading.hpp"

namespace cudoctor::watch {

struct WatchOptions {
    std::optional<unsigned> pid;       ///< watch this process (and its children)
    std::vector<std::string> command;  ///< or launch this one
    std::chrono::milliseconds interval{10000};
    std::optional<std::chrono::milliseconds> duration;
    std::string out_dir;
    std::optional<std::string> kernel_log;  ///< --kernel-log FILE
    std::chrono::milliseconds sample_timeout{10000};
    /// CUDOCTOR_OVERRIDE_WATCH_STEP: samples are stamped this far apart on a simulated clock
    /// (replays of recorded series, faster than real time); the duration counts on that clock.
    std::optional<std::chrono::milliseconds> clock_step;
    bool live_status = false;  ///< a one-line status on stderr (a terminal), as wide as it is
    int echo_fd = 1;           ///< where the launched command's output goes
    /// Set in the launched command's environment ("NAME=value" each), over ours: the colour
    /// choice (NO_COLOR=1 for --color=never, CLICOLOR_FORCE=1 for always), which is never
    /// written into our own environment.
    std::vector<std::string> extra_env;
    /// Told, as it happens, one line the user should see at once (why there are no GPU
    /// samples); the command prints it on stderr. May be empty.
    std::function<void(const std::string&)> note;
};

/// How the loop ended.
struct WatchEnd {
    bool interrupted = false;  ///< by SIGINT/SIGTERM/SIGHUP
    std::string why;           ///< "duration reached", "process 4242 ended", "command exited", "interrupted"
    std::size_t samples = 0;
};

/// Runs the loop, writing into options.out_dir (which must not hold a watch yet). Errc::usage
/// for a folder that holds a watch, a --pid that is not running; Errc::io when the folder or a
/// row cannot be written, or the command cannot be started.
[[nodiscard]] Expected<WatchEnd> run_watch(const host::Host& host, const WatchOptions& options);

/// Where NVML was looked for: what a sample without GPUs is explained by.
struct NvmlSearch {
    bool rooted = false;                      ///< --root: an image's libraries are never loaded
    bool any_candidate = true;                ///< there was a file or SONAME to try at all
    std::optional<std::string> the_override;  ///< "CUDOCTOR_DRIVER_LIBRARY_PATH=…" when set
};

/// Why `reading` holds no GPU, in one line ("" when it holds one): "no libnvidia-ml.so.1 could
/// be loaded: no NVIDIA driver here (dlerror)", "… under --root an image's libraries are never
/// loaded", "NVML init failed (LIBRARY): nvmlInit_v2 failed with 18 (…)", "NVML (LIBRARY) sees no
/// GPU", or the sample's trouble (a hang, a crash). Pure.
[[nodiscard]] std::string no_gpu_reason(const Reading& reading, const NvmlSearch& search);

/// "10s" "250ms" "1.5h" "24h" "2m" "1d" → milliseconds. Errc::usage for anything else, zero, or
/// more than 366 days.
[[nodiscard]] Expected<std::chrono::milliseconds> parse_duration(std::string_view text);

}  // namespace cudoctor::watch
