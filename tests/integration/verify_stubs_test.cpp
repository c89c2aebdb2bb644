// `cudoctor verify` against stand-in driver libraries (tests/stubs: real shared objects with the
// real SONAMEs and symbols, one folder per machine behaviour) found through
// CUDOCTOR_DRIVER_LIBRARY_PATH: each level's verdict and explanation, and that a hanging or
// crashing driver leaves verify alive with the right message.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/json_query.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

std::string stubs(const std::string& behaviour) { return std::string(CUDOCTOR_STUBS_DIR) + "/" + behaviour; }

/// outside_environment() without its CUDA_VISIBLE_DEVICES (a value that hides every GPU), plus `extra`.
std::vector<std::string> environment(const std::vector<std::string>& extra) {
    std::vector<std::string> env;
    for (const auto& e : outside_environment())
        if (!e.starts_with("CUDA_VISIBLE_DEVICES=")) env.push_back(e);
    env.insert(env.end(), extra.begin(), extra.end());
    return env;
}

struct Verified {
    RunResult run;
    json report;
    const json& step(const std::string& id) const { return verify_step(report, id); }
    std::string status(const std::string& id) const { return step(id)["status"]; }
    std::string reason(const std::string& id) const { return step(id)["reason"]; }
    std::string cause(const std::string& id) const { return step(id)["cause"]; }
};

Verified verify_with(const std::string& library_dir, const std::vector<std::string>& args, const std::vector<std::string>& extra_env = {}) {
    std::vector<std::string> argv = {"verify", "--json", "--timeout", "2"};
    argv.insert(argv.end(), args.begin(), args.end());
    Verified v;
    v.run = run_program(CUDOCTOR_BINARY, argv, environment([&] {
                            auto e = extra_env;
                            e.push_back("CUDOCTOR_DRIVER_LIBRARY_PATH=" + library_dir);
                            return e;
                        }()),
                        120s);
    v.report = json::parse(v.run.out, nullptr, false);
    if (!v.report.is_object()) throw std::runtime_error("not JSON: " + v.run.describe() + "\n" + v.run.out + v.run.err);
    return v;
}

TEST(VerifyStubs, HealthyMachinePassesLevelOne) {
    auto v = verify_with(stubs("healthy"), {"--level", "1"});
    EXPECT_EQ(v.run.exit_code, 0) << v.report.dump(2);
    EXPECT_EQ(v.report["verdict"], "PASS");
    EXPECT_EQ(v.status("cuda-visible-devices"), "PASS");
    EXPECT_EQ(v.reason("driver-api"), "cuInit(0) = CUDA_SUCCESS via " + stubs("healthy") + "/libcuda.so.1");
    EXPECT_EQ(v.status("driver-version"), "PASS");
    EXPECT_EQ(v.step("devices")["details"][0]["value"],
              "NVIDIA GeForce RTX 4090 · compute capability 8.9 · 128 SMs · 23.6 GiB · 2520 MHz · memory 10501 MHz × 384-bit");
    EXPECT_EQ(v.reason("nvml"), "driver 580.65.06, runs CUDA ≤ 13.0, 1 GPU(s)");
    EXPECT_EQ(v.report["overrides"][0], "CUDOCTOR_DRIVER_LIBRARY_PATH=" + stubs("healthy"));
    EXPECT_EQ(v.report["levels"].size(), 1u);
}

TEST(VerifyStubs, OldDriverIsAnInsufficientDriver) {
    auto v = verify_with(stubs("old_driver"), {"--level", "1"});
    EXPECT_EQ(v.run.exit_code, 1);
    EXPECT_EQ(v.status("driver-api"), "PASS");
    EXPECT_EQ(v.status("driver-version"), "FAIL");
    EXPECT_TRUE(v.reason("driver-version").starts_with("insufficient driver: it runs CUDA ≤ 11.4, but CUDA 13.0"))
        << v.reason("driver-version");
    EXPECT_NE(v.cause("driver-version").find("cudaErrorInsufficientDriver (35)"), std::string::npos);
    EXPECT_NE(v.cause("driver-version").find("CUDA 13.0 needs driver ≥ 580"), std::string::npos) << v.cause("driver-version");
    EXPECT_EQ(v.reason("nvml"), "driver 470.256.02, runs CUDA ≤ 11.4, 1 GPU(s)");
}

TEST(VerifyStubs, VersionMismatchIsNamedByBothLibraries) {
    auto v = verify_with(stubs("rm_mismatch"), {"--level", "1"});
    EXPECT_EQ(v.run.exit_code, 1);
    EXPECT_TRUE(v.reason("driver-api").starts_with("cuInit(0) = CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803)")) << v.reason("driver-api");
    EXPECT_EQ(v.reason("nvml"), "nvmlInit_v2() = NVML_ERROR_LIB_RM_VERSION_MISMATCH (18): Driver/library version mismatch");
    EXPECT_NE(v.cause("nvml").find("Driver/library version mismatch: the user-space driver libraries were upgraded"), std::string::npos);
    EXPECT_NE(v.step("nvml")["fix"].get<std::string>().find("sudo reboot"), std::string::npos);
    EXPECT_EQ(v.status("devices"), "SKIP");
}

TEST(VerifyStubs, NoDeviceAndCompatAreToldApart) {
    auto none = verify_with(stubs("no_device"), {"--level", "1"});
    EXPECT_TRUE(none.reason("driver-api").starts_with("cuInit(0) = CUDA_ERROR_NO_DEVICE (100)")) << none.reason("driver-api");
    EXPECT_NE(none.cause("driver-api").find("The driver is loaded but CUDA sees no GPU"), std::string::npos);
    EXPECT_EQ(none.reason("nvml"), "nvmlDeviceGetCount_v2 = 0: the driver sees no GPU");
    auto compat = verify_with(stubs("compat"), {"--level", "1"});
    EXPECT_TRUE(compat.reason("driver-api").starts_with("cuInit(0) = CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804)"));
    EXPECT_NE(compat.cause("driver-api").find("forward-compatibility libcuda"), std::string::npos);
    EXPECT_NE(compat.step("driver-api")["fix"].get<std::string>().find("cuda-compat"), std::string::npos);
}

TEST(VerifyStubs, EmptyCudaVisibleDevicesIsNamed) {
    auto v = verify_with(stubs("healthy"), {"--level", "1"}, {"CUDA_VISIBLE_DEVICES="});
    EXPECT_EQ(v.run.exit_code, 1);
    EXPECT_EQ(v.status("cuda-visible-devices"), "FAIL");
    EXPECT_TRUE(v.reason("driver-api").starts_with("cuInit(0) = CUDA_ERROR_NO_DEVICE (100)"));
    EXPECT_EQ(v.cause("driver-api"), "CUDA_VISIBLE_DEVICES= hides every GPU: it is set but empty.");
    EXPECT_EQ(v.status("nvml"), "PASS") << "NVML ignores CUDA_VISIBLE_DEVICES";
    auto minus = verify_with(stubs("healthy"), {"--level", "1"}, {"CUDA_VISIBLE_DEVICES=-1"});
    EXPECT_NE(minus.cause("driver-api").find("CUDA_VISIBLE_DEVICES=-1 hides every GPU"), std::string::npos);
}

TEST(VerifyStubs, HangingDriverLeavesVerifyAlive) {
    const auto start = std::chrono::steady_clock::now();
    auto v = verify_with(stubs("hang"), {"--level", "1"});
    EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);
    EXPECT_FALSE(v.run.timed_out);
    EXPECT_EQ(v.run.exit_code, 1);
    EXPECT_EQ(v.reason("driver-api"), "libcuda: cuInit hung: no answer within 2000 ms (killed)");
    EXPECT_NE(v.cause("driver-api").find("never returned from cuInit"), std::string::npos);
    EXPECT_EQ(v.reason("nvml"), "libnvidia-ml: nvmlInit_v2 hung: no answer within 2000 ms (killed)");
}

TEST(VerifyStubs, CrashingDriverLeavesVerifyAlive) {
    auto v = verify_with(stubs("segfault"), {"--level", "3"});
    EXPECT_EQ(v.run.signal, 0);
    EXPECT_EQ(v.run.exit_code, 1);
    EXPECT_EQ(v.reason("driver-api"), "libcuda: cuInit crashed with signal 11 (SIGSEGV, Segmentation fault)");
    EXPECT_NE(v.cause("driver-api").find("crashed the process inside cuInit"), std::string::npos);
    EXPECT_EQ(v.reason("nvml"), "libnvidia-ml: nvmlInit_v2 crashed with signal 11 (SIGSEGV, Segmentation fault)");
    EXPECT_EQ(v.reason("cudnn"), "libcudnn: cudnnGetVersion crashed with signal 11 (SIGSEGV, Segmentation fault)");
}

TEST(VerifyStubs, ToolkitStubLibcudaIsRecognised) {
    const std::string stub = "/usr/local/cuda-13.0/lib64/stubs/libcuda.so";
    if (!std::filesystem::exists(stub)) GTEST_SKIP() << "no toolkit stub libcuda here";
    TempDir dir;
    dir.link("libcuda.so.1", stub);
    auto v = verify_with(dir.str(), {"--level", "1"});
    EXPECT_TRUE(v.reason("driver-api").starts_with("cuInit(0) = CUDA_ERROR_STUB_LIBRARY (34)")) << v.reason("driver-api");
    EXPECT_NE(v.cause("driver-api").find("stub libcuda"), std::string::npos);
    EXPECT_NE(v.step("driver-api")["fix"].get<std::string>().find("grep -v '/stubs'"), std::string::npos);
}

TEST(VerifyStubs, NvrtcKernelLaunchedThroughTheDriverApi) {
    if (!std::filesystem::exists("/usr/local/cuda-13.0/lib/libnvrtc.so.13")) GTEST_SKIP() << "no NVRTC here";
    auto v = verify_with(stubs("healthy"), {"--level", "2", "--compiler", "nvrtc"});
    EXPECT_EQ(v.status("nvrtc-compile"), "PASS") << v.report.dump(2);
    EXPECT_TRUE(v.reason("nvrtc-compile").starts_with("NVRTC 13.0 compiled the kernel to ")) << v.reason("nvrtc-compile");
    EXPECT_TRUE(v.reason("nvrtc-compile").ends_with("bytes of PTX for compute_89")) << v.reason("nvrtc-compile");
    EXPECT_EQ(v.reason("kernel-launch"), "all 1048576 threads wrote their value (via " + stubs("healthy") + "/libcuda.so.1)");
    EXPECT_EQ(v.status("cublas-gemm"), "SKIP");
}

TEST(VerifyStubs, PoisonCatchesThreadsThatNeverRan) {
    if (!std::filesystem::exists("/usr/local/cuda-13.0/lib/libnvrtc.so.13")) GTEST_SKIP() << "no NVRTC here";
    auto v = verify_with(stubs("wrong_result"), {"--level", "2", "--compiler", "nvrtc"});
    EXPECT_EQ(v.run.exit_code, 1);
    EXPECT_EQ(v.reason("kernel-launch"),
              "524288 of 1048576 threads wrote a wrong value; the first at index 524288: 0xDEADBEEF "
              "(still the poison: that thread never ran)");
}

TEST(VerifyStubs, CudnnLoadsAndMakesAHandle) {
    auto v = verify_with(stubs("healthy"), {"--level", "3", "--compiler", "nvrtc"});
    EXPECT_EQ(v.reason("cudnn"), "cuDNN 9.19.0, built with CUDA 13.0 (" + stubs("healthy") + "/libcudnn.so.9)");
    EXPECT_EQ(v.status("cudnn-handle"), "PASS");
    EXPECT_EQ(v.reason("cudnn-handle"), "cudnnCreate = CUDNN_STATUS_SUCCESS");
}

TEST(VerifyStubs, ReportReplaysFromJson) {
    auto v = verify_with(stubs("rm_mismatch"), {"--level", "1"});
    TempDir dir;
    const auto saved = dir.write("verify.json", v.run.out);
    auto replay = run_cudoctor({"verify", "--snapshot", saved.string(), "--json"});
    EXPECT_EQ(replay.exit_code, 1);
    EXPECT_EQ(json::parse(replay.out), v.report);
    auto text = run_cudoctor({"verify", "--snapshot", saved.string()});
    EXPECT_EQ(text.exit_code, 1);  // a FAIL report exits 1 in every format, as the live run does
    EXPECT_NE(text.out.find("FAIL  NVML answers"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("cause: Driver/library version mismatch"), std::string::npos) << text.out;
    auto md = run_cudoctor({"verify", "--snapshot", saved.string(), "--markdown"});
    EXPECT_EQ(md.exit_code, 1);
    EXPECT_NE(md.out.find("### cudoctor verify: FAIL"), std::string::npos) << md.out;
    auto bad = run_cudoctor({"verify", "--snapshot", dir.write("bad.json", "{").string()});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("not a JSON document"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace cudoctor::test

namespace cudoctor::test {

TEST(VerifyStubs, TimeoutTakesTheOneDurationGrammar) {
    // "--timeout 10s" failed with CLI11's "Could not convert"; a number alone is still seconds.
    const std::string root = std::string(CUDOCTOR_ROOTS_DIR) + "/vmware-no-gpu";
    for (const char* t : {"10s", "1.5m", "20"}) EXPECT_NE(run_cudoctor({"verify", "--root", root, "--timeout", t}).exit_code, 2) << t;
    const auto bad = run_cudoctor({"verify", "--root", root, "--timeout", "soon"});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("--timeout 'soon': not a duration from 1ms to 1h"), std::string::npos) << bad.err;
}

}  // namespace cudoctor::test
