// `cudoctor verify` on this machine as it is (a CUDA 13.0 toolkit, cuDNN 9, Debian's CPU build of
// torch, no GPU and no driver): level 1 names the missing driver, level 2 still compiles with the
// real nvcc (and says it cannot run), level 3 imports torch and lists the libraries it mapped.
// Also: the real check program on a driverless machine, and that the doctor's own process never
// maps a driver library.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "driver/kernel_source.hpp"
#include "host/host.hpp"
#include "integration/run_cudoctor.hpp"
#include "kb/kb.hpp"
#include "support/json_query.hpp"
#include "support/temp_dir.hpp"
#include "verify/check_output.hpp"
#include "verify/verify.hpp"

namespace cudoctor::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

const std::string kNvcc = "/usr/local/cuda-13.0/bin/nvcc";

bool driverless_with_toolkit() { return !std::filesystem::exists("/proc/driver/nvidia/version") && std::filesystem::exists(kNvcc); }

TEST(VerifyMachine, NoDriverFailsLevelOneAndLevelTwoStillCompiles) {
    if (!driverless_with_toolkit()) GTEST_SKIP() << "needs this machine's shape: CUDA 13.0 toolkit, no NVIDIA driver";
    auto run = run_program(CUDOCTOR_BINARY, {"verify", "--level", "2", "--json"},
                           {"PATH=/usr/local/cuda-13.0/bin:/usr/bin:/bin", "HOME=/nonexistent", "LANG=C.UTF-8"}, 300s);
    ASSERT_EQ(run.exit_code, 1) << run.describe() << run.err;
    auto report = json::parse(run.out);
    EXPECT_EQ(report["verdict"], "FAIL");
    const auto& api = verify_step(report, "driver-api");
    EXPECT_EQ(api["status"], "FAIL");
    EXPECT_TRUE(api["reason"].get<std::string>().starts_with(
        "no NVIDIA driver: libcuda.so.1 cannot be loaded (libcuda.so.1: cannot open shared object file"))
        << api["reason"];
    EXPECT_NE(api["cause"].get<std::string>().find("no NVIDIA GPU is on this machine's PCI bus"), std::string::npos) << api["cause"];
    const auto& compile = verify_step(report, "nvcc-compile");
    EXPECT_EQ(compile["status"], "PASS") << compile.dump(2);
    EXPECT_TRUE(compile["reason"].get<std::string>().starts_with(kNvcc + " (CUDA 13.0.88) compiled a kernel for"));
    const auto& kernel = verify_step(report, "kernel-run");
    EXPECT_EQ(kernel["status"], "SKIP");
    EXPECT_EQ(kernel["reason"],
              "compiled, but cannot run here: needs a working driver and GPU; level 1 failed: no NVIDIA driver "
              "(libcuda.so.1 cannot be loaded)");
    // The temporary folder is gone.
    const std::string folder = compile["details"][1]["value"];
    EXPECT_FALSE(std::filesystem::exists(folder.substr(0, folder.find(' '))));
}

TEST(VerifyMachine, TorchCpuBuildAndTheLibrariesItMapped) {
    if (!std::filesystem::exists("/usr/lib/python3/dist-packages/torch/__init__.py") || !driverless_with_toolkit())
        GTEST_SKIP() << "needs Debian's python3-torch and no driver";
    auto run = run_program(CUDOCTOR_BINARY, {"verify", "--level", "3", "--compiler", "nvrtc", "--json"},
                           {"PATH=/usr/local/cuda-13.0/bin:/usr/bin:/bin", "HOME=/nonexistent", "LANG=C.UTF-8"}, 300s);
    auto report = json::parse(run.out);
    const auto& torch = verify_step(report, "framework-torch");
    EXPECT_EQ(torch["status"], "SKIP") << torch.dump(2);
    EXPECT_EQ(torch["reason"],
              "torch 1.13.0a0 imports: a CPU build (torch.version.cuda is None); no GPU on this machine to use "
              "either");
    bool cpu_lib = false, none = false;
    for (const auto& d : torch["details"]) {
        cpu_lib |= d["key"] == "libtorch_cpu.so.1.13.0" && d["value"] == "/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13.0 (system)";
        none |= d["key"] == "CUDA libraries loaded" && d["value"] == "none";
    }
    EXPECT_TRUE(cpu_lib) << torch.dump(2);
    EXPECT_TRUE(none) << torch.dump(2);
    // cuDNN of the toolkit: version from the real library, no handle without a GPU.
    const auto& cudnn = verify_step(report, "cudnn");
    EXPECT_EQ(cudnn["reason"], "cuDNN 9.19.0, built with CUDA 13.1 (/usr/local/cuda-13.0/lib/libcudnn.so.9)");
    EXPECT_EQ(verify_step(report, "cudnn-handle")["status"], "SKIP");
    EXPECT_EQ(verify_step(report, "nvrtc-compile")["status"], "PASS");
    EXPECT_EQ(verify_step(report, "kernel-launch")["status"], "SKIP");
}

TEST(VerifyMachine, CheckProgramOnADriverlessMachineSaysInsufficientDriver) {
    if (!driverless_with_toolkit()) GTEST_SKIP() << "needs nvcc and no driver";
    TempDir dir;
    const auto source = dir.write("check.cu", driver::kProgramSource);
    const std::string program = dir.str() + "/check";
    auto host = host::Host::real();
    auto build = host.run({kNvcc, "-O2", "-o", program, source.string(), "-ldl", "-Wno-deprecated-gpu-targets"}, 300s);
    ASSERT_TRUE(build) << build.error().message;
    ASSERT_EQ(build->exit_code, 0) << build->err;
    auto run = host.run({program, "kernel"}, 60s);
    ASSERT_TRUE(run);
    auto outcome = verify::parse_check_output(run->out);
    ASSERT_TRUE(outcome) << run->out;
    EXPECT_EQ(outcome->kind, verify::CheckOutcome::Kind::error);
    EXPECT_EQ(outcome->what, "cudaMalloc");
    EXPECT_EQ(outcome->code, 35);
    EXPECT_EQ(outcome->name, "cudaErrorInsufficientDriver");
    EXPECT_EQ(outcome->text, "CUDA driver version is insufficient for CUDA runtime version");
}

TEST(VerifyMachine, DoctorProcessNeverMapsADriverLibrary) {
    const std::string healthy = std::string(CUDOCTOR_STUBS_DIR) + "/healthy";
    // The override is cudoctor's own environment (never the probed machine's): set while verify runs.
    ::setenv("CUDOCTOR_DRIVER_LIBRARY_PATH", healthy.c_str(), 1);
    auto host = host::Host::real();
    snapshot::Snapshot snap;
    verify::Options options;
    options.level = 1;
    auto report = verify::run_verify(host, kb::Kb::builtin(), snap, options);
    ::unsetenv("CUDOCTOR_DRIVER_LIBRARY_PATH");
    ASSERT_EQ(report.levels.size(), 1u);
    EXPECT_EQ(report.levels[0].steps[1].status, verify::Status::pass) << report.levels[0].steps[1].reason;
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        EXPECT_EQ(line.find(healthy), std::string::npos) << line;
        EXPECT_EQ(line.find("libcuda.so"), std::string::npos) << line;
        EXPECT_EQ(line.find("libnvidia-ml"), std::string::npos) << line;
    }
}

TEST(VerifyMachine, RealGpuCapturesReplay) {
    // bench/gpu-check.sh saves check.json and verify.json of a real GPU machine; committed under
    // tests/fixtures/real-gpu/<machine>/ they are replayed here.
    const std::filesystem::path dir = std::string(CUDOCTOR_SOURCE_DIR) + "/tests/fixtures/real-gpu";
    if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no real-GPU capture committed yet (run bench/gpu-check.sh on a GPU)";
    for (const auto& machine : std::filesystem::directory_iterator(dir)) {
        const auto saved = machine.path() / "verify.json";
        if (!std::filesystem::exists(saved)) continue;
        std::ifstream in(saved);
        const json original = json::parse(in);
        auto replay = run_cudoctor({"verify", "--snapshot", saved.string(), "--json"});
        EXPECT_EQ(replay.exit_code, original["verdict"] == "PASS" ? 0 : 1) << machine.path();
        EXPECT_EQ(json::parse(replay.out), original) << machine.path();
        EXPECT_EQ(verify_step(original, "driver-api")["status"], "PASS") << "a real GPU machine's driver answers";
    }
}

}  // namespace
}  // namespace cudoctor::test
