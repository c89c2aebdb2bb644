// watch's live status line fits the terminal (1 and 8 GPUs at 40, 80 and 200 columns), the
// width it is given comes from the terminal, COLUMNS or 80; why a sample holds no GPU is said in
// one line; the verdict line of a summary (what -q prints).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "watch/status_line.hpp"
#include "watch/summary.hpp"
#include "watch/watcher.hpp"

namespace cudoctor::test::watch_status {

using namespace cudoctor::watch;

constexpr std::uint64_t kGiB = 1024ull * 1024 * 1024;

/// `n` busy H100s (80 GiB), GPU i at 40 + 4i % memory, 90 + i % utilisation, 60 + 3i °C.
Reading busy(unsigned n, std::size_t processes = 2) {
    Reading r;
    for (unsigned i = 0; i < n; ++i) {
        GpuReading g;
        g.index = i;
        g.name = "NVIDIA H100 80GB HBM3";
        g.memory_total = 80 * kGiB;
        g.memory_used = 80 * kGiB * (40 + 4 * i) / 100;
        g.util_gpu = 90 + i;
        g.temperature_c = 60 + 3 * i;
        g.power_mw = 350000 + 1000 * i;
        r.gpus.push_back(g);
    }
    for (std::size_t p = 0; p < processes; ++p) r.processes.push_back({0, static_cast<unsigned>(4000 + p), kGiB, "python3"});
    return r;
}

bool has_control(const std::string& s) {
    for (char c : s)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
    return false;
}

TEST(WatchStatus, FitsEveryWidthWithOneAndEightGpus) {
    for (unsigned gpus : {1u, 8u})
        for (std::size_t width : {40u, 80u, 200u}) {
            SCOPED_TRACE(std::to_string(gpus) + " GPUs, " + std::to_string(width) + " columns");
            const auto line = status_line(3725, busy(gpus), 373, 1, width);
            EXPECT_LE(display_columns(line), width) << line;
            EXPECT_FALSE(has_control(line)) << line;
            EXPECT_TRUE(line.starts_with("[01:02]")) << line;
        }
    // What each width shows.
    EXPECT_EQ(status_line(3725, busy(1), 373, 1, 200), "[01:02] 373 samples | GPU0 32 GiB/80 GiB 90% 60°C 350W | 2 proc | Xid 1");
    EXPECT_EQ(status_line(3725, busy(1), 373, 1, 80), "[01:02] 373 samples | GPU0 32 GiB/80 GiB 90% 60°C 350W | 2 proc | Xid 1");
    EXPECT_EQ(status_line(3725, busy(1), 373, 1, 40), "[01:02] 1 GPU · mem 40% · 2 proc · Xid 1");
    // Eight GPUs in full take some 350 columns: a summary of all of them instead.
    EXPECT_GT(display_columns(status_line(3725, busy(8), 373, 1, 1000)), 300u);
    EXPECT_EQ(status_line(3725, busy(8), 373, 1, 200),
              "[01:02] 373 samples | 8 GPUs · mem max 68% · util max 97% · max 81°C | 2 proc | Xid 1");
    EXPECT_EQ(status_line(3725, busy(8), 373, 1, 80), "[01:02] 8 GPUs · mem max 68% · 2 proc · Xid 1");
    EXPECT_EQ(status_line(3725, busy(8), 373, 1, 40), "[01:02] 8 GPUs · mem max 68% · Xid 1");
    // Narrower than anything: cut, never past the width.
    for (std::size_t width : {0u, 1u, 5u, 12u}) EXPECT_LE(display_columns(status_line(3725, busy(8), 373, 1, width)), width);
}

TEST(WatchStatus, TroubleTakesTheRestOfTheLineEscaped) {
    Reading r;
    r.trouble = "nvmlInit_v2 hung: no answer within 10000 ms (killed) \x1b]0;owned\x07";
    const auto wide = status_line(60, r, 3, 0, 200);
    EXPECT_EQ(wide, "[00:01] 3 samples · no GPU · Xid 0 | nvmlInit_v2 hung: no answer within 10000 ms (killed) ?]0;owned?");
    const auto narrow = status_line(60, r, 3, 0, 60);
    EXPECT_LE(display_columns(narrow), 60u) << narrow;
    EXPECT_TRUE(narrow.ends_with("…")) << narrow;
    EXPECT_FALSE(has_control(narrow));
    EXPECT_EQ(status_line(60, r, 3, 0, 40), "[00:01] 3 samples · no GPU · Xid 0");  // no room left for it
}

TEST(WatchStatus, ColumnsCountCharactersNotBytes) {
    EXPECT_EQ(display_columns("61°C"), 4u);
    EXPECT_EQ(display_columns("a · b…"), 6u);
    EXPECT_EQ(display_columns("\xf0\x9f\x94\xa5!"), 3u);  // an emoji: two
    EXPECT_EQ(display_columns("显卡"), 4u);               // wide: two columns each
}

TEST(WatchStatus, WidthFromTheTerminalThenColumnsThen80) {
    EXPECT_EQ(terminal_width(std::optional<unsigned>(132), "100"), 132u);
    EXPECT_EQ(terminal_width(std::optional<unsigned>(0), "100"), 100u);  // a pty that does not know
    EXPECT_EQ(terminal_width(std::nullopt, "100"), 100u);
    EXPECT_EQ(terminal_width(std::nullopt, nullptr), 80u);
    for (const char* bad : {"", "wide", "0", "-5", "12x", "99999"}) EXPECT_EQ(terminal_width(std::nullopt, bad), 80u) << bad;
}

TEST(WatchStatus, WhyNoGpuInOneLine) {
    const NvmlSearch here{false, true, std::nullopt};
    Reading none;
    none.tried = {"libnvidia-ml.so.1: cannot open shared object file: No such file or directory"};
    none.trouble = "libnvidia-ml.so.1 could not be loaded: " + none.tried.back();
    EXPECT_EQ(no_gpu_reason(none, here),
              "no libnvidia-ml.so.1 could be loaded: no NVIDIA driver here (libnvidia-ml.so.1: cannot open shared object file: No such "
              "file or directory)");
    EXPECT_EQ(no_gpu_reason(none, {false, true, "CUDOCTOR_DRIVER_LIBRARY_PATH=/opt/nvml"}),
              "no libnvidia-ml.so.1 could be loaded: no NVIDIA driver here, nor in CUDOCTOR_DRIVER_LIBRARY_PATH=/opt/nvml "
              "(libnvidia-ml.so.1: cannot open shared object file: No such file or directory)");
    Reading nothing_tried;
    nothing_tried.trouble = "libnvidia-ml.so.1 could not be loaded";
    EXPECT_EQ(no_gpu_reason(nothing_tried, {true, false, std::nullopt}),
              "no libnvidia-ml.so.1 could be loaded: under --root an image's libraries are never loaded (CUDOCTOR_DRIVER_LIBRARY_PATH "
              "may name a folder of this computer that holds one)");
    EXPECT_EQ(no_gpu_reason(none, {true, true, "CUDOCTOR_DRIVER_LIBRARY_PATH=/opt/nvml"}),
              "no libnvidia-ml.so.1 could be loaded: under --root an image's libraries are never loaded, and none loads from "
              "CUDOCTOR_DRIVER_LIBRARY_PATH=/opt/nvml (libnvidia-ml.so.1: cannot open shared object file: No such file or directory)");
    Reading init;
    init.library = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.65.06";
    init.init_result = 18;
    init.trouble = "nvmlInit_v2 failed with 18 (RM has detected an NVML/RM version mismatch.)";
    EXPECT_EQ(no_gpu_reason(init, here),
              "NVML init failed (/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.65.06): nvmlInit_v2 failed with 18 (RM has detected an "
              "NVML/RM version mismatch.)");
    Reading hung;
    hung.library = "/lib/libnvidia-ml.so.1";
    hung.trouble = "nvmlInit_v2 hung: no answer within 200 ms (killed)";
    EXPECT_EQ(no_gpu_reason(hung, here), "NVML (/lib/libnvidia-ml.so.1) gave no answer: nvmlInit_v2 hung: no answer within 200 ms (killed)");
    Reading empty;
    empty.library = "/lib/libnvidia-ml.so.1";
    empty.init_result = 0;
    EXPECT_EQ(no_gpu_reason(empty, here), "NVML (/lib/libnvidia-ml.so.1) sees no GPU");
    EXPECT_EQ(no_gpu_reason(busy(1), here), "");
}

/// A summary with one process series of the given verdict and slope (bytes per second).
Summary with_process(TrendVerdict verdict, double slope) {
    Summary s;
    s.samples = 121;
    s.duration = 4 * 3600;
    MemorySeries m;
    m.label = "pid 4242 python3 (GPU 1)";
    m.gpu = 1;
    m.pid = 4242;
    m.name = "python3";
    m.trend.verdict = verdict;
    m.trend.slope = slope;
    s.series.push_back(m);
    return s;
}

TEST(WatchStatus, VerdictLine) {
    EXPECT_EQ(verdict_line(with_process(TrendVerdict::flat, 0)), "✓ no memory growth (121 samples over 04:00)");
    EXPECT_EQ(verdict_line(with_process(TrendVerdict::sawtooth, 0)), "✓ no memory growth (121 samples over 04:00)");
    const double mib_per_hour = 1024.0 * 1024.0 / 3600.0;
    EXPECT_EQ(verdict_line(with_process(TrendVerdict::leak, 38 * mib_per_hour)), "✗ memory grows: pid 4242 python3 +38 MiB/h on GPU 1");

    auto xid = with_process(TrendVerdict::flat, 0);
    DriverReport r;
    r.row.kind = "xid";
    r.row.code = 79;
    r.gpu = 1;
    r.info = XidInfo{};
    r.info->meaning = "GPU has fallen off the bus";
    xid.reports = {r, r};
    EXPECT_EQ(verdict_line(xid), "✗ Xid 79 on GPU 1: GPU has fallen off the bus (and 1 more driver report)");

    Summary nothing;
    nothing.no_gpu_samples = "no libnvidia-ml.so.1 could be loaded: no NVIDIA driver here";
    EXPECT_EQ(verdict_line(nothing), "! no GPU samples: no libnvidia-ml.so.1 could be loaded: no NVIDIA driver here");

    auto exited = with_process(TrendVerdict::flat, 0);
    exited.exit = EventRow{};
    exited.exit->code = -9;
    EXPECT_EQ(verdict_line(exited), "✗ the command was ended by signal 9");
}

}  // namespace cudoctor::test::watch_status
