// `--format prometheus` for real: the metrics of `check` on every fixture machine, of `fleet` on
// snapshots the binary took, and of `watch report` on a replayed record pass Debian's
// `promtool check metrics` (package prometheus); Debian's prometheus-node-exporter serves what
// `check --output` wrote, read back over HTTP from 127.0.0.1. Both skip where not installed.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <chrono>
#include <filesystem>
#include <regex>
#include <thread>

#include "integration/run_cudoctor.hpp"
#include "support/files.hpp"
#include "support/mutable_root.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test {
namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kTime = "2024-06-12T06:00:00Z";  // 1718172000

std::string installed_program(const std::string& name) {
    for (const char* dir : {"/usr/bin", "/usr/sbin", "/bin", "/usr/local/bin"})
        if (::access((fs::path(dir) / name).c_str(), X_OK) == 0) return (fs::path(dir) / name).string();
    return "";
}

RunResult cudoctor_at(const std::vector<std::string>& args) {
    auto env = outside_environment();
    env.push_back(std::string("CUDOCTOR_OVERRIDE_TIME=") + kTime);
    return run_program(CUDOCTOR_BINARY, args, env, 60s);
}

// promtool reads the metrics from standard input only: a shell redirects a file there.
RunResult promtool_check(const std::string& promtool, const std::string& metrics) {
    TempDir tmp;
    const auto file = tmp.write("metrics.prom", metrics);
    return run_program("/bin/sh", {"-c", "exec \"$0\" check metrics < \"$1\"", promtool, file.string()}, {"PATH=/usr/bin:/bin"}, 60s);
}

#define REQUIRE_PROMTOOL(var)                              \
    const std::string var = installed_program("promtool"); \
    if (var.empty()) GTEST_SKIP() << "promtool is not installed (Debian: apt-get install prometheus)"

bool has_line(const std::string& text, const std::string& line) { return ("\n" + text).find("\n" + line + "\n") != std::string::npos; }

TEST(PrometheusCheck, EveryFixtureMachinePassesPromtool) {
    REQUIRE_PROMTOOL(promtool);
    std::size_t machines = 0;
    for (const auto& entry : fs::directory_iterator(CUDOCTOR_ROOTS_DIR)) {
        if (!entry.is_directory()) continue;
        SCOPED_TRACE(entry.path().filename().string());
        ++machines;
        const auto r = cudoctor_at({"check", "--root", entry.path().string(), "--format", "prometheus"});
        ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.describe() << r.err;
        EXPECT_TRUE(r.out.starts_with("# HELP cudoctor_finding ")) << r.out.substr(0, 200);
        EXPECT_TRUE(has_line(r.out, "cudoctor_check_timestamp_seconds 1718172000")) << r.out;
        const auto check = promtool_check(promtool, r.out);
        EXPECT_EQ(check.exit_code, 0) << check.out << check.err << "\n" << r.out;
        EXPECT_EQ(check.out + check.err, "");
        // The exit status and the metrics agree: exit 1 exactly where an error is counted or the
        // machine can run nothing on its GPU.
        const bool errors = !has_line(r.out, "cudoctor_findings{severity=\"error\"} 0");
        const bool runnable = has_line(r.out, "cudoctor_gpu_code_runnable 1");
        EXPECT_TRUE(runnable || has_line(r.out, "cudoctor_gpu_code_runnable 0")) << r.out;
        EXPECT_EQ(r.exit_code, errors || !runnable ? 1 : 0) << r.out;
    }
    EXPECT_GE(machines, 20u);
}

TEST(PrometheusCheck, ABrokenMachinesFindingsAndFacts) {
    const auto r = cudoctor_at({"check", "--root", std::string(CUDOCTOR_ROOTS_DIR) + "/driver-mismatch", "--format", "prometheus"});
    ASSERT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(has_line(r.out, "cudoctor_finding{rule=\"driver-library-mismatch\",severity=\"error\",layer=\"driver\"} 1")) << r.out;
    EXPECT_TRUE(has_line(r.out, "cudoctor_driver_info{version=\"535.183.01\",kernel_module=\"535.183.01\",flavour=\"proprietary\"} 1"))
        << r.out;
    EXPECT_TRUE(has_line(r.out, "cudoctor_gpu_info{index=\"0\",name=\"GeForce RTX 3070\",compute_capability=\"8.6\",pci=\"0000:01:00.0\"} 1"))
        << r.out;

    const auto healthy =
        cudoctor_at({"check", "--root", std::string(CUDOCTOR_ROOTS_DIR) + "/ubuntu2204-rtx4060ti", "--format", "prometheus"});
    EXPECT_TRUE(has_line(healthy.out, "cudoctor_findings{severity=\"error\"} 0")) << healthy.out;
    EXPECT_TRUE(has_line(healthy.out, "cudoctor_toolkit_info{release=\"12.4.1\",path=\"/usr/local/cuda-12.4\",default=\"true\"} 1"))
        << healthy.out;
    EXPECT_TRUE(has_line(healthy.out,
                         "cudoctor_cudnn_info{version=\"9.1.0\",cuda_major=\"12\",path=\"/usr/local/cuda-12.4/targets/x86_64-linux/lib\"} 1"))
        << healthy.out;
    EXPECT_TRUE(has_line(healthy.out, "cudoctor_gpu_code_runnable 1"));
    EXPECT_NE(healthy.out.find("cudoctor_framework_info{name=\"torch\",version=\"2.4.0"), std::string::npos) << healthy.out;
}

// The health check a scheduler runs: the exit status alone says broken or not, one line printed.
TEST(PrometheusCheck, QuietFailOnErrorIsAHealthCheck) {
    const auto broken =
        cudoctor_at({"check", "--quiet", "--fail-on", "error", "--root", std::string(CUDOCTOR_ROOTS_DIR) + "/driver-mismatch"});
    EXPECT_EQ(broken.exit_code, 1) << broken.err;
    EXPECT_EQ(std::count(broken.out.begin(), broken.out.end(), '\n'), 1) << broken.out;
    EXPECT_NE(broken.out.find("driver-library-mismatch"), std::string::npos) << broken.out;
    const auto healthy =
        cudoctor_at({"check", "--quiet", "--fail-on", "error", "--root", std::string(CUDOCTOR_ROOTS_DIR) + "/ubuntu2204-rtx4060ti"});
    EXPECT_EQ(healthy.exit_code, 0) << healthy.out << healthy.err;
    EXPECT_EQ(std::count(healthy.out.begin(), healthy.out.end(), '\n'), 1) << healthy.out;
}

TEST(PrometheusCheck, OutputIsWrittenAtomicallyAndMatchesStdout) {
    TempDir tmp;
    const std::string root = std::string(CUDOCTOR_ROOTS_DIR) + "/driver-mismatch";
    const auto file = tmp.path() / "textfile" / "cudoctor.prom";
    fs::create_directories(file.parent_path());
    tmp.write("textfile/cudoctor.prom", "old contents\n");
    const auto written = cudoctor_at({"check", "--root", root, "--format", "prometheus", "--output", file.string()});
    EXPECT_EQ(written.exit_code, 1) << written.err;
    EXPECT_EQ(written.out, "");
    const auto printed = cudoctor_at({"check", "--root", root, "--format", "prometheus"});
    EXPECT_EQ(slurp(file), printed.out);
    // Only the file itself: the temporary file was renamed over it, nothing left beside it.
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(file.parent_path())) names.push_back(e.path().filename().string());
    EXPECT_EQ(names, std::vector<std::string>{"cudoctor.prom"});
    // -q keeps the metrics whole, as it keeps --json whole.
    EXPECT_EQ(cudoctor_at({"check", "-q", "--root", root, "--format", "prometheus"}).out, printed.out);
}

TEST(PrometheusCheck, FormatChoicesAndTheOldFlags) {
    const std::string root = std::string(CUDOCTOR_ROOTS_DIR) + "/ubuntu2204-rtx4060ti";
    EXPECT_EQ(cudoctor_at({"check", "--root", root, "--format", "json"}).out, cudoctor_at({"check", "--root", root, "--json"}).out);
    EXPECT_EQ(cudoctor_at({"check", "--root", root, "--format", "markdown"}).out, cudoctor_at({"check", "--root", root, "--markdown"}).out);
    for (const std::vector<std::string>& bad : {std::vector<std::string>{"check", "--root", root, "--format", "yaml"},
                                                std::vector<std::string>{"check", "--root", root, "--json", "--format", "prometheus"},
                                                std::vector<std::string>{"check", "--root", root, "--markdown", "--format", "text"},
                                                std::vector<std::string>{"fleet", root, "--json", "--format", "prometheus"},
                                                std::vector<std::string>{"watch", "report", root, "--format", "markdown"}}) {
        const auto r = cudoctor_at(bad);
        EXPECT_EQ(r.exit_code, 2) << bad.back() << r.out << r.err;
        // One line: on stderr, or with --json the error object on stdout.
        EXPECT_FALSE((r.out + r.err).empty());
        EXPECT_EQ(r.out.find("cudoctor_"), std::string::npos);
    }
}

TEST(PrometheusFleet, EveryNodeAndTheDriftPassPromtool) {
    TempDir tmp;
    const std::string out = (tmp.path() / "snaps/%h.json").string();
    fs::create_directories(tmp.path() / "snaps");
    for (const auto& [scenario, host] : std::vector<std::pair<std::string, std::string>>{{"ubuntu2204-rtx4060ti", "gpu01"},
                                                                                         {"ubuntu2204-rtx4060ti", "gpu02"},
                                                                                         {"driver-mismatch", "gpu03"}}) {
        MutableRoot root(scenario);
        root.write("/etc/hostname", host + "\n");
        const auto r = cudoctor_at({"check", "--root", root.path().string(), "--json", "--output", out});
        ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.describe() << r.err;
    }
    const auto r = cudoctor_at({"fleet", (tmp.path() / "snaps").string(), "--format", "prometheus"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(has_line(r.out, "cudoctor_fleet_nodes 3")) << r.out;
    EXPECT_TRUE(has_line(r.out, "cudoctor_fleet_unreadable_snapshots 0"));
    EXPECT_TRUE(has_line(r.out, "cudoctor_fleet_node_drift{node=\"gpu03\",layer=\"driver\"} 1")) << r.out;
    EXPECT_EQ(r.out.find("cudoctor_fleet_node_drift{node=\"gpu01\""), std::string::npos);
    EXPECT_TRUE(has_line(r.out, "cudoctor_finding{node=\"gpu03\",rule=\"driver-library-mismatch\",severity=\"error\",layer=\"driver\"} 1"))
        << r.out;
    for (const char* node : {"gpu01", "gpu02", "gpu03"}) {
        EXPECT_TRUE(has_line(r.out, std::string("cudoctor_check_timestamp_seconds{node=\"") + node + "\"} 1718172000")) << node;
        EXPECT_NE(r.out.find(std::string("cudoctor_gpu_info{node=\"") + node + "\",index=\"0\""), std::string::npos) << node;
    }
    REQUIRE_PROMTOOL(promtool);
    const auto check = promtool_check(promtool, r.out);
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err << "\n" << r.out;
    EXPECT_EQ(check.out + check.err, "");
}

// A watch record made as watch_replay_test makes it: the stand-in libnvidia-ml.so.1 replays a
// recorded series, its kernel log holds the fake driver's Xid.
fs::path record_watch(const TempDir& dir, const std::string& series) {
    std::vector<std::string> env;
    for (const auto& e : outside_environment())
        if (!e.starts_with("CUDA_VISIBLE_DEVICES=")) env.push_back(e);
    dir.write("kern.log", "[    1.000000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.65.06\n");
    env.push_back(std::string("CUDOCTOR_DRIVER_LIBRARY_PATH=") + CUDOCTOR_WATCH_STUB_DIR);
    env.push_back("CUDOCTOR_FAKE_NVML_SERIES=" + std::string(CUDOCTOR_WATCH_SERIES_DIR) + "/" + series + ".tsv");
    env.push_back("CUDOCTOR_FAKE_NVML_CURSOR=" + (dir.path() / "cursor").string());
    env.push_back("CUDOCTOR_FAKE_KERNEL_LOG=" + (dir.path() / "kern.log").string());
    env.emplace_back("CUDOCTOR_OVERRIDE_WATCH_STEP=2m");
    const auto out = dir.path() / "out";
    const auto r = run_program(CUDOCTOR_BINARY,
                               {"watch", "--json", "--interval", "5ms", "--duration", "4h", "--out", out.string(), "--kernel-log",
                                (dir.path() / "kern.log").string()},
                               env, 120s);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.describe() << r.err;
    return out;
}

TEST(PrometheusWatch, AReplayedRecordsMemoryTrendsAndXidPassPromtool) {
    TempDir flat_dir, leak_dir;
    const auto flat = run_cudoctor({"watch", "report", record_watch(flat_dir, "flat").string(), "--format", "prometheus"});
    EXPECT_EQ(flat.exit_code, 1) << flat.err;  // the Xid
    // The fake driver's GPU 0 (00000000:18:00.0) reported Xid 13 once.
    const std::regex xid(R"(\ncudoctor_xid_events_total\{gpu="0",uuid="GPU-[0-9a-f-]+",xid="13"\} 1\n)");
    EXPECT_TRUE(std::regex_search(flat.out, xid)) << flat.out;
    EXPECT_TRUE(std::regex_search(flat.out, std::regex(R"(\ncudoctor_gpu_memory_used_bytes\{gpu="0",uuid="GPU-[0-9a-f-]+"\} [0-9]+\n)")))
        << flat.out;
    EXPECT_TRUE(has_line(flat.out, "cudoctor_memory_leak{gpu=\"0\",pid=\"3999902\"} 0")) << flat.out;
    EXPECT_TRUE(has_line(flat.out, "cudoctor_memory_leak{gpu=\"0\",pid=\"\"} 0")) << flat.out;
    EXPECT_TRUE(has_line(flat.out, "cudoctor_watch_cuda_errors_total 0"));

    const auto leak = run_cudoctor({"watch", "report", record_watch(leak_dir, "leak").string(), "--format", "prometheus"});
    EXPECT_TRUE(has_line(leak.out, "cudoctor_memory_leak{gpu=\"0\",pid=\"3999901\"} 1")) << leak.out;
    // About 38 MiB an hour (watch_replay_test checks the fit itself).
    std::smatch m;
    ASSERT_TRUE(std::regex_search(leak.out, m, std::regex(R"(\ncudoctor_memory_trend_bytes_per_hour\{gpu="0",pid="3999901"\} ([0-9.e+]+)\n)")))
        << leak.out;
    EXPECT_NEAR(std::stod(m[1].str()) / (1024.0 * 1024.0), 38, 4);
    EXPECT_EQ(leak.out.find("cudoctor_xid_events_total{"), std::string::npos);

    REQUIRE_PROMTOOL(promtool);
    for (const auto* r : {&flat, &leak}) {
        const auto check = promtool_check(promtool, r->out);
        EXPECT_EQ(check.exit_code, 0) << check.out << check.err << "\n" << r->out;
        EXPECT_EQ(check.out + check.err, "");
    }
}

int free_loopback_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
        port = ntohs(addr.sin_port);
    ::close(fd);
    return port;
}

// GET /metrics from 127.0.0.1:port over HTTP/1.0 (the server closes the connection at the end):
// the body of a 200 answer, "" for anything else or after a 5 s silence.
std::string http_get_metrics(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return "";
    timeval timeout{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string answer;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
        const std::string request = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/plain\r\n\r\n";
        if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
            char buf[65536];
            for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) answer.append(buf, static_cast<std::size_t>(n));
        }
    }
    ::close(fd);
    const auto body = answer.find("\r\n\r\n");
    if (!answer.starts_with("HTTP/1.") || answer.find(" 200 ") > answer.find("\r\n") || body == std::string::npos) return "";
    return answer.substr(body + 4);
}

// The exporter, started by this test and stopped by its pid when the test ends, pass or fail.
class Exporter {
  public:
    Exporter(const std::string& program, const std::vector<std::string>& args, const fs::path& log) {
        std::vector<std::string> argv{program};
        argv.insert(argv.end(), args.begin(), args.end());
        std::vector<char*> c_args;
        for (auto& a : argv) c_args.push_back(a.data());
        c_args.push_back(nullptr);
        char* env[] = {const_cast<char*>("PATH=/usr/bin:/bin"), nullptr};
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
        if (posix_spawn(&m_pid, program.c_str(), &fa, nullptr, c_args.data(), env) != 0) m_pid = -1;
        posix_spawn_file_actions_destroy(&fa);
    }
    ~Exporter() {
        if (m_pid <= 0) return;
        ::kill(m_pid, SIGTERM);
        for (int i = 0; i < 50; ++i) {
            if (::waitpid(m_pid, nullptr, WNOHANG) == m_pid) return;
            std::this_thread::sleep_for(100ms);
        }
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
    }
    Exporter(const Exporter&) = delete;
    Exporter& operator=(const Exporter&) = delete;
    bool running() const { return m_pid > 0 && ::waitpid(m_pid, nullptr, WNOHANG) == 0; }

  private:
    pid_t m_pid = -1;
};

TEST(PrometheusNodeExporter, ServesWhatCheckWrote) {
    const std::string exporter = installed_program("prometheus-node-exporter");
    if (exporter.empty()) GTEST_SKIP() << "prometheus-node-exporter is not installed (Debian: apt-get install prometheus-node-exporter)";
    TempDir tmp;
    const auto textfile = tmp.path() / "textfile";
    fs::create_directories(textfile);
    const auto r = cudoctor_at({"check", "--root", std::string(CUDOCTOR_ROOTS_DIR) + "/driver-mismatch", "--format", "prometheus",
                                "--output", (textfile / "cudoctor.prom").string()});
    ASSERT_EQ(r.exit_code, 1) << r.err;

    std::string body;
    for (int attempt = 0; attempt < 3 && body.empty(); ++attempt) {  // another program may take the free port first
        const int port = free_loopback_port();
        ASSERT_GT(port, 0);
        Exporter running(exporter,
                         {"--collector.disable-defaults", "--collector.textfile", "--collector.textfile.directory=" + textfile.string(),
                          "--web.listen-address=127.0.0.1:" + std::to_string(port)},
                         tmp.path() / "exporter.log");
        for (int i = 0; i < 100 && body.empty() && running.running(); ++i) {
            body = http_get_metrics(port);
            if (body.empty()) std::this_thread::sleep_for(100ms);
        }
    }
    ASSERT_FALSE(body.empty()) << "no answer from the exporter:\n" << slurp(tmp.path() / "exporter.log");
    // The exporter parsed the file (no scrape error) and serves every family, labels sorted its way.
    EXPECT_TRUE(has_line(body, "node_textfile_scrape_error 0")) << body;
    EXPECT_TRUE(has_line(body, "cudoctor_finding{layer=\"driver\",rule=\"driver-library-mismatch\",severity=\"error\"} 1")) << body;
    EXPECT_TRUE(has_line(body, "cudoctor_findings{severity=\"error\"} 1")) << body;
    EXPECT_TRUE(has_line(body, "cudoctor_driver_info{flavour=\"proprietary\",kernel_module=\"535.183.01\",version=\"535.183.01\"} 1"))
        << body;
    EXPECT_TRUE(has_line(body, "cudoctor_check_timestamp_seconds 1.718172e+09")) << body;
    EXPECT_NE(body.find("# HELP cudoctor_gpu_info An NVIDIA GPU"), std::string::npos);
}

}  // namespace
}  // namespace cudoctor::test
