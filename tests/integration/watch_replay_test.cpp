// `cudoctor watch` end to end: the real binary samples a stand-in libnvidia-ml.so.1
// (tests/watch_stubs/replay_nvml.c) that replays a recorded series, faster than real time
// (CUDOCTOR_OVERRIDE_WATCH_STEP stamps the samples 2 minutes apart, --interval 5ms paces them).
// The trend verdict must be right for a leak, a flat line and a caching allocator's sawtooth;
// an Xid the fake driver writes to the kernel log must come out with its meaning; a launched
// command's CUDA error and exit must be reported; a watcher killed with SIGKILL leaves CSV
// files that are whole and can be summarised.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/files.hpp"
#include "support/temp_dir.hpp"

extern char** environ;

namespace cudoctor::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr double kBytesPerMiB = 1024.0 * 1024.0;

/// The environment of a replay of series/NAME.tsv, with its cursor and kernel log in `dir`.
std::vector<std::string> replay_env(const TempDir& dir, const std::string& series, const std::string& library_dir = CUDOCTOR_WATCH_STUB_DIR) {
    std::vector<std::string> env;
    for (const auto& e : outside_environment())
        if (!e.starts_with("CUDA_VISIBLE_DEVICES=")) env.push_back(e);
    dir.write("kern.log", "[    1.000000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.65.06\n");
    env.push_back("CUDOCTOR_DRIVER_LIBRARY_PATH=" + library_dir);
    env.push_back("CUDOCTOR_FAKE_NVML_SERIES=" + std::string(CUDOCTOR_WATCH_SERIES_DIR) + "/" + series + ".tsv");
    env.push_back("CUDOCTOR_FAKE_NVML_CURSOR=" + (dir.path() / "cursor").string());
    env.push_back("CUDOCTOR_FAKE_KERNEL_LOG=" + (dir.path() / "kern.log").string());
    env.emplace_back("CUDOCTOR_OVERRIDE_WATCH_STEP=2m");
    return env;
}

std::vector<std::string> watch_args(const TempDir& dir, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"watch",        "--json",
                                     "--interval",   "5ms",
                                     "--duration",   "4h",
                                     "--out",        (dir.path() / "out").string(),
                                     "--kernel-log", (dir.path() / "kern.log").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

struct Watched {
    RunResult run;
    json summary;
    const json& series(const std::string& kind) const {
        for (const auto& m : summary["memory"])
            if (m["kind"] == kind) return m;
        throw std::runtime_error("no " + kind + " series in\n" + summary.dump(2));
    }
};

Watched replay(const TempDir& dir, const std::string& series, std::vector<std::string> extra = {}) {
    Watched w;
    w.run = run_program(CUDOCTOR_BINARY, watch_args(dir, std::move(extra)), replay_env(dir, series), 120s);
    w.summary = json::parse(w.run.out, nullptr, false);
    if (!w.summary.is_object()) throw std::runtime_error("not JSON: " + w.run.describe() + "\n" + w.run.out + w.run.err);
    return w;
}

double mib_per_hour(const json& m) { return m["slope_bytes_per_hour"].get<double>() / kBytesPerMiB; }

TEST(WatchReplay, LeakIsALeakWithSlopeConfidenceAndStart) {
    TempDir dir;
    const auto w = replay(dir, "leak");
    EXPECT_EQ(w.run.exit_code, 1) << w.run.err;
    EXPECT_EQ(w.summary["samples"], 121);
    EXPECT_EQ(w.summary["duration_s"], 4 * 3600);
    const auto& p = w.series("process");
    EXPECT_EQ(p["pid"], 3999901);
    EXPECT_EQ(p["verdict"], "leak") << p.dump(2);
    EXPECT_NEAR(mib_per_hour(p), 38, 4);
    EXPECT_LT(p["ci95_bytes_per_hour"][0].get<double>() / kBytesPerMiB, 38);
    EXPECT_GT(p["ci95_bytes_per_hour"][1].get<double>() / kBytesPerMiB, 38);
    EXPECT_GE(p["since_s"].get<double>(), 1800);
    EXPECT_LE(p["since_s"].get<double>(), 3000);
    EXPECT_NE(p["summary"].get<std::string>().find("MiB/hour, steady since 00:"), std::string::npos) << p["summary"];
    EXPECT_EQ(w.series("gpu")["verdict"], "leak");
    EXPECT_TRUE(w.summary["driver_reports"].empty());
    const auto gpu = w.summary["gpus"][0];
    EXPECT_EQ(gpu["name"], "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(gpu["pci"], "00000000:18:00.0");
    EXPECT_GE(gpu["temperature_max_c"].get<int>(), 64);
    // The record on disk: one row per sample, and the plot.
    const auto out = dir.path() / "out";
    const auto csv = slurp(out / "gpus.csv");
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 122);
    const auto svg = slurp(out / "memory.svg");
    EXPECT_TRUE(svg.starts_with("<svg")) << svg.substr(0, 80);
    EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n') > 5, true);
    EXPECT_NE(svg.find("<polyline"), std::string::npos);
    EXPECT_NE(svg.find("pid 3999901"), std::string::npos);
    EXPECT_NE(slurp(out / "watch.json").find("CUDOCTOR_OVERRIDE_WATCH_STEP=120000ms"), std::string::npos);

    // `watch report DIR` reads the same folder to the same verdict, as text too.
    const auto again = run_cudoctor({"watch", "report", out.string(), "--json"});
    EXPECT_EQ(again.exit_code, 1);
    EXPECT_EQ(json::parse(again.out)["memory"], w.summary["memory"]);
    const auto text = run_cudoctor({"watch", "report", out.string()});
    EXPECT_NE(text.out.find("leak      pid 3999901"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("steady since 00:"), std::string::npos) << text.out;
}

TEST(WatchReplay, FlatIsFlatAndTheXidIsExplained) {
    TempDir dir;
    const auto w = replay(dir, "flat");
    EXPECT_EQ(w.run.exit_code, 1) << w.run.err;  // the Xid is a problem, the memory is not
    EXPECT_EQ(w.series("process")["verdict"], "flat") << w.series("process").dump(2);
    EXPECT_LT(std::abs(mib_per_hour(w.series("process"))), 5);
    EXPECT_EQ(w.series("gpu")["verdict"], "flat");
    ASSERT_EQ(w.summary["driver_reports"].size(), 1u) << w.summary.dump(2);
    const auto& xid = w.summary["driver_reports"][0];
    EXPECT_EQ(xid["kind"], "xid");
    EXPECT_EQ(xid["code"], 13);
    EXPECT_EQ(xid["gpu"], 0);  // 0000:18:00 in the log is NVML's 00000000:18:00.0
    EXPECT_EQ(xid["pid"], 3999902);
    EXPECT_EQ(xid["elapsed_s"], 7200);
    EXPECT_EQ(xid["xid"]["meaning"], "Graphics Engine Exception");
    EXPECT_EQ(xid["xid"]["cause"], "app");
    EXPECT_NE(xid["text"].get<std::string>().find("Out Of Range Address"), std::string::npos);
}

TEST(WatchReplay, CachingAllocatorSawtoothIsNotALeak) {
    TempDir dir;
    const auto w = replay(dir, "sawtooth");
    EXPECT_EQ(w.run.exit_code, 0) << w.run.out << w.run.err;
    const auto& p = w.series("process");
    EXPECT_EQ(p["verdict"], "sawtooth") << p.dump(2);
    EXPECT_EQ(p["drops"], 5);
    EXPECT_NE(p["summary"].get<std::string>().find("not a leak"), std::string::npos);
    EXPECT_FALSE(w.summary["problems"].get<bool>());
}

TEST(WatchReplay, LaunchedCommandExitAndCudaErrorText) {
    TempDir dir;
    // PyTorch's message for an asynchronous kernel fault, written as a training script would.
    const auto w = replay(dir, "flat",
                          {"--", "/bin/sh", "-c",
                           "echo epoch 1; echo 'RuntimeError: CUDA error: an illegal memory access was encountered' >&2; exit 3"});
    EXPECT_EQ(w.run.exit_code, 1) << w.run.err;
    EXPECT_EQ(w.summary["exit"]["status"], 3);
    ASSERT_EQ(w.summary["cuda_errors"].size(), 1u) << w.summary.dump(2);
    EXPECT_EQ(w.summary["cuda_errors"][0]["text"], "RuntimeError: CUDA error: an illegal memory access was encountered");
    EXPECT_NE(slurp(dir.path() / "out" / "command.log").find("epoch 1"), std::string::npos);
    EXPECT_NE(w.run.err.find("epoch 1"), std::string::npos);  // passed through (to stderr under --json)
    EXPECT_LT(w.summary["samples"].get<int>(), 121);          // the watch ended with the command
}

// The colour choice reaches the launched command in its environment (never in ours): NO_COLOR=1
// for --color=never, CLICOLOR_FORCE=1 for always, neither for auto.
TEST(WatchReplay, LaunchedCommandGetsTheColourChoice) {
    const std::vector<std::pair<std::string, std::string>> cases = {{"never", "nc=1 cf=unset"},
                                                                    {"always", "nc=unset cf=1"},
                                                                    {"auto", "nc=unset cf=unset"}};
    for (const auto& [mode, want] : cases) {
        SCOPED_TRACE(mode);
        TempDir dir;
        std::vector<std::string> env;
        for (auto& e : replay_env(dir, "flat"))
            if (!e.starts_with("NO_COLOR=") && !e.starts_with("CLICOLOR_FORCE=")) env.push_back(std::move(e));
        auto args = watch_args(dir, {"--color=" + mode, "--", "/bin/sh", "-c", "echo \"nc=${NO_COLOR-unset} cf=${CLICOLOR_FORCE-unset}\""});
        const auto run = run_program(CUDOCTOR_BINARY, args, env, 120s);
        EXPECT_NE(run.exit_code, 2) << run.describe() << run.err;
        EXPECT_NE(slurp(dir.path() / "out" / "command.log").find(want), std::string::npos) << slurp(dir.path() / "out" / "command.log");
    }
}

TEST(WatchReplay, CsvSurvivesKill) {
    TempDir dir;
    const auto env = replay_env(dir, "leak");
    auto args = watch_args(dir);
    args[3] = "20ms";                                // --interval
    args.erase(args.begin() + 4, args.begin() + 6);  // no --duration: runs until killed
    std::vector<std::string> argv = {CUDOCTOR_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv, cenv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    auto env_copy = env;
    for (auto& e : env_copy) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    ASSERT_EQ(posix_spawn(&pid, CUDOCTOR_BINARY, &actions, nullptr, cargv.data(), cenv.data()), 0);
    posix_spawn_file_actions_destroy(&actions);

    const auto gpus = dir.path() / "out" / "gpus.csv";
    auto rows = [&] {
        const auto text = slurp(gpus);
        return std::count(text.begin(), text.end(), '\n');
    };
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (rows() < 31 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status));
    ASSERT_GE(rows(), 31) << "the watcher wrote too few rows before the deadline";

    // Every row the watcher wrote is whole: 14 cells, a line break at the end.
    const auto text = slurp(gpus);
    ASSERT_TRUE(text.ends_with('\n'));
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) EXPECT_EQ(std::count(line.begin(), line.end(), ','), 13) << line;
    const auto report = run_cudoctor({"watch", "report", (dir.path() / "out").string(), "--json"});
    ASSERT_TRUE(report.exit_code == 0 || report.exit_code == 1) << report.describe() << report.err;
    const auto summary = json::parse(report.out);
    EXPECT_GE(summary["samples"].get<int>(), 30);
    EXPECT_TRUE(summary["warnings"].empty()) << summary["warnings"];
}

TEST(WatchReplay, HangingDriverCostsSamplesNotTheWatch) {
    TempDir hung;
    auto args = watch_args(hung, {"--timeout", "200ms"});
    args[5] = "6m";  // --duration: 4 samples 2 minutes apart
    const auto run = run_program(CUDOCTOR_BINARY, args, replay_env(hung, "flat", std::string(CUDOCTOR_STUBS_DIR) + "/hang"), 60s);
    const auto summary = json::parse(run.out, nullptr, false);
    ASSERT_TRUE(summary.is_object()) << run.describe() << run.out << run.err;
    EXPECT_EQ(summary["failed_samples"], 4);
    EXPECT_TRUE(summary["memory"].empty());
}

TEST(WatchReplay, BadInputOneLineAndNothingChanged) {
    TempDir dir;
    auto check = [](const RunResult& r, const std::string& message) {
        EXPECT_EQ(r.exit_code, 2) << r.describe() << r.out << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    };
    check(run_cudoctor({"watch", "--interval", "soon", "--out", (dir.path() / "a").string()}), "'soon' is not a duration");
    check(run_cudoctor({"watch", "--pid", "1", "--out", (dir.path() / "b").string(), "--", "true"}), "not both");
    check(run_cudoctor({"watch", "report", (dir.path() / "none").string()}), "is not a folder");
    // A missing parent is refused, not created all the way up (check --output's rule).
    check(run_cudoctor({"watch", "--out", (dir.path() / "missing/w").string(), "--", "true"}), "is not an existing folder");
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "missing"));
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "a"));
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "b"));
    // A folder that already holds a watch is never written into again.
    const auto first = replay(dir, "sawtooth");
    const auto before = slurp(dir.path() / "out" / "gpus.csv");
    const auto second = run_program(CUDOCTOR_BINARY, watch_args(dir), replay_env(dir, "sawtooth"), 60s);
    EXPECT_EQ(second.exit_code, 2);
    EXPECT_EQ(slurp(dir.path() / "out" / "gpus.csv"), before);
    // Garbage and a cut row in a watch folder: skipped with a warning, never a crash.
    std::ofstream(dir.path() / "out" / "gpus.csv", std::ios::app) << "garbage,row\n2024-01-01T00:00:00.000Z,1.0,0,\"unclosed";
    const auto report = run_cudoctor({"watch", "report", (dir.path() / "out").string(), "--json"});
    EXPECT_EQ(report.exit_code, 0) << report.err;
    EXPECT_EQ(json::parse(report.out)["warnings"].size(), 2u) << report.out;
}

}  // namespace
}  // namespace cudoctor::test
