// `cudoctor watch` with no NVML to sample says why in one line: on stderr as soon as it knows,
// in the record, and in `watch report` ("no GPU samples: …" where the memory table would be),
// whether no libnvidia-ml.so.1 loads (no NVIDIA driver here: this machine), the watch is of an
// image (--root: its libraries are never loaded), NVML's init fails (the rm_mismatch stand-in)
// or NVML sees no GPU (the no_device stand-in). And `watch report` honours -q: one verdict line.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/files.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test::watch_no_nvml {

using nlohmann::json;
using namespace std::chrono_literals;

/// Our environment with CUDOCTOR_DRIVER_LIBRARY_PATH=`library_dir` (none when empty), samples
/// stamped 2 minutes apart.
std::vector<std::string> env_with(const std::string& library_dir) {
    std::vector<std::string> env;
    for (const auto& e : outside_environment())
        if (!e.starts_with("CUDA_VISIBLE_DEVICES=")) env.push_back(e);
    if (!library_dir.empty()) env.push_back("CUDOCTOR_DRIVER_LIBRARY_PATH=" + library_dir);
    env.emplace_back("CUDOCTOR_OVERRIDE_WATCH_STEP=2m");
    return env;
}

struct Watched {
    RunResult run;
    json summary;
    std::string out_dir;
};

/// Three samples (6 minutes on the stepped clock) with --json, then the summary.
/// (Under --root the step override is the image's to set, not ours: `duration` on the wall clock.)
Watched watch(const TempDir& dir, const std::string& library_dir, std::vector<std::string> extra = {}, const std::string& duration = "5m") {
    dir.write("kern.log", "");
    std::vector<std::string> args = {"watch",      "--json", "--interval", "5ms",
                                     "--duration", duration, "--out",      (dir.path() / "out").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    Watched w;
    w.out_dir = (dir.path() / "out").string();
    w.run = run_program(CUDOCTOR_BINARY, args, env_with(library_dir), 60s);
    w.summary = json::parse(w.run.out, nullptr, false);
    return w;
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

TEST(WatchNoNvml, NoDriverHereSaysSoLiveInTheRecordAndInTheReport) {
    TempDir dir;
    // An empty override folder first, then the system's own libnvidia-ml.so.1: on this machine
    // there is none.
    dir.write("empty/.keep", "");
    const auto w = watch(dir, (dir.path() / "empty").string(), {"--kernel-log", (dir.path() / "kern.log").string()});
    ASSERT_TRUE(w.summary.is_object()) << w.run.describe() << w.run.out << w.run.err;
    if (w.summary["no_gpu_samples"].is_null()) GTEST_SKIP() << "this machine has an NVIDIA driver: NVML answered";
    const std::string why = w.summary["no_gpu_samples"];
    EXPECT_TRUE(why.starts_with("no libnvidia-ml.so.1 could be loaded: no NVIDIA driver here, nor in CUDOCTOR_DRIVER_LIBRARY_PATH=")) << why;
    EXPECT_EQ(w.summary["samples"], 0);  // no GPU row: no sample to count
    EXPECT_EQ(w.summary["verdict"], "! no GPU samples: " + why);
    // Live: one line on stderr, once, not once per sample.
    EXPECT_EQ(count(w.run.err, "cudoctor watch: no GPU samples: no libnvidia-ml.so.1 could be loaded: no NVIDIA driver here"), 1u)
        << w.run.err;
    // The record holds it: `watch report` says it where the memory table would be.
    const auto text = run_cudoctor({"watch", "report", w.out_dir});
    EXPECT_EQ(text.exit_code, 0) << text.describe() << text.err;
    EXPECT_NE(text.out.find("\nno GPU samples: no libnvidia-ml.so.1 could be loaded: no NVIDIA driver here"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("Memory trend"), std::string::npos) << text.out;
    EXPECT_NE(slurp(std::filesystem::path(w.out_dir) / "memory.svg").find("no GPU samples: no libnvidia-ml.so.1"), std::string::npos);
    const auto quiet = run_cudoctor({"-q", "watch", "report", w.out_dir});
    EXPECT_EQ(quiet.out, "! no GPU samples: " + why + "\n");
    EXPECT_EQ(quiet.err, "");
}

TEST(WatchNoNvml, UnderRootTheImagesLibrariesAreNeverLoaded) {
    TempDir dir;
    const auto w = watch(dir, "", {"--root", std::string(CUDOCTOR_ROOTS_DIR) + "/ubuntu2204-rtx4060ti"}, "40ms");
    ASSERT_TRUE(w.summary.is_object()) << w.run.describe() << w.run.out << w.run.err;
    const std::string why = w.summary["no_gpu_samples"];
    EXPECT_TRUE(why.starts_with("no libnvidia-ml.so.1 could be loaded: under --root an image's libraries are never loaded")) << why;
    EXPECT_EQ(count(w.run.err, "cudoctor watch: no GPU samples: no libnvidia-ml.so.1 could be loaded: under --root"), 1u) << w.run.err;
}

TEST(WatchNoNvml, InitFailureAndNoDeviceAreNamed) {
    {
        TempDir dir;
        const auto w = watch(dir, std::string(CUDOCTOR_STUBS_DIR) + "/rm_mismatch", {"--kernel-log", (dir.path() / "kern.log").string()});
        ASSERT_TRUE(w.summary.is_object()) << w.run.describe() << w.run.out << w.run.err;
        const std::string why = w.summary["no_gpu_samples"];
        EXPECT_TRUE(why.starts_with("NVML init failed (")) << why;
        EXPECT_NE(why.find("): nvmlInit_v2 failed with 18 ("), std::string::npos) << why;
        EXPECT_EQ(count(w.run.err, "cudoctor watch: no GPU samples: NVML init failed ("), 1u) << w.run.err;
    }
    {
        TempDir dir;
        const auto w = watch(dir, std::string(CUDOCTOR_STUBS_DIR) + "/no_device", {"--kernel-log", (dir.path() / "kern.log").string()});
        ASSERT_TRUE(w.summary.is_object()) << w.run.describe() << w.run.out << w.run.err;
        const std::string why = w.summary["no_gpu_samples"];
        EXPECT_TRUE(why.starts_with("NVML (") && why.ends_with(") sees no GPU")) << why;
    }
}

TEST(WatchNoNvml, QuietReportIsOneVerdictLine) {
    // A recorded leak, flat memory with an Xid, and a sawtooth (tests/watch_stubs/series).
    const std::vector<std::pair<std::string, std::string>> cases = {{"leak", "✗ memory grows: pid 3999901 "},
                                                                    {"flat", "✗ Xid 13 on GPU 0: Graphics Engine Exception"},
                                                                    {"sawtooth", "✓ no memory growth ("}};
    for (const auto& [series, want] : cases) {
        SCOPED_TRACE(series);
        TempDir dir;
        dir.write("kern.log", "");
        auto env = env_with(CUDOCTOR_WATCH_STUB_DIR);
        env.push_back("CUDOCTOR_FAKE_NVML_SERIES=" + std::string(CUDOCTOR_WATCH_SERIES_DIR) + "/" + series + ".tsv");
        env.push_back("CUDOCTOR_FAKE_NVML_CURSOR=" + (dir.path() / "cursor").string());
        env.push_back("CUDOCTOR_FAKE_KERNEL_LOG=" + (dir.path() / "kern.log").string());
        const auto out = (dir.path() / "out").string();
        const auto live = run_program(CUDOCTOR_BINARY,
                                      {"-q", "watch", "--interval", "5ms", "--duration", "4h", "--out", out, "--kernel-log",
                                       (dir.path() / "kern.log").string()},
                                      env, 120s);
        EXPECT_EQ(count(live.out, "\n"), 1u) << live.out;  // -q on the watch itself: its verdict only
        EXPECT_TRUE(live.out.starts_with(want)) << live.out;
        EXPECT_EQ(live.err, "");
        const auto quiet = run_cudoctor({"-q", "watch", "report", out});
        EXPECT_EQ(count(quiet.out, "\n"), 1u) << quiet.out;
        EXPECT_TRUE(quiet.out.starts_with(want)) << quiet.out;
        EXPECT_EQ(quiet.exit_code, series == "sawtooth" ? 0 : 1);
        EXPECT_EQ(quiet.out, live.out);
    }
}

}  // namespace cudoctor::test::watch_no_nvml
