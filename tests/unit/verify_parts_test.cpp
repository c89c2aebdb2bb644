// The pure parts of verify: CUDA_VISIBLE_DEVICES, the check program's verdict lines, where a
// mapped library comes from, version numbers, the child protocol and the report's JSON.
#include <gtest/gtest.h>

#include "driver/child_log.hpp"
#include "driver/driver_calls.hpp"
#include "driver/loaded_libraries.hpp"
#include "verify/check_output.hpp"
#include "verify/report.hpp"
#include "verify/visible_devices.hpp"

namespace cudoctor::verify {
namespace {

TEST(VisibleDevices, UnsetAndValidValuesPass) {
    EXPECT_EQ(visible_devices_step(check_visible_devices(std::nullopt)).status, Status::pass);
    auto v = check_visible_devices("0,1");
    EXPECT_FALSE(v.hides_all);
    EXPECT_EQ(v.entries, (std::vector<std::string>{"0", "1"}));
    EXPECT_EQ(visible_devices_step(v).status, Status::pass);
    EXPECT_TRUE(check_visible_devices("GPU-5f3c2d1e-8a4b").problem.empty());
    EXPECT_TRUE(check_visible_devices("MIG-0f1e2d3c").problem.empty());
}

TEST(VisibleDevices, EmptyHidesEveryGpu) {
    auto v = check_visible_devices("");
    EXPECT_TRUE(v.hides_all);
    EXPECT_EQ(v.problem, "it is set but empty");
    auto step = visible_devices_step(v);
    EXPECT_EQ(step.status, Status::fail);
    EXPECT_EQ(step.reason, "CUDA_VISIBLE_DEVICES=\"\": it is set but empty");
    EXPECT_NE(step.cause.find("CUDA_ERROR_NO_DEVICE (100)"), std::string::npos);
    EXPECT_NE(step.fix.find("unset CUDA_VISIBLE_DEVICES"), std::string::npos);
}

TEST(VisibleDevices, MinusOneAndWordsAreInvalid) {
    auto minus = check_visible_devices("-1");
    EXPECT_TRUE(minus.hides_all);
    EXPECT_EQ(minus.problem,
              "\"-1\" is neither a GPU index nor a GPU UUID (a negative index hides every GPU from it on), so the "
              "driver stops reading the list there");
    auto word = check_visible_devices("none");
    EXPECT_TRUE(word.hides_all);
    auto later = check_visible_devices("0,gpu1,2");
    EXPECT_FALSE(later.hides_all);
    EXPECT_EQ(later.entries, std::vector<std::string>{"0"});
    EXPECT_EQ(visible_devices_step(later).cause, "GPUs listed after that entry are hidden from CUDA.");
}

TEST(CheckOutput, KernelVerdicts) {
    auto ok = parse_check_output("noise\ncudoctor-check: kernel ok 1048576\n");
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->kind, CheckOutcome::Kind::ok);
    EXPECT_EQ(ok->summary, "all 1048576 threads wrote their value");
    auto wrong = parse_check_output("cudoctor-check: kernel wrong 524288 1048576 524288 4025479151\n");
    ASSERT_TRUE(wrong);
    EXPECT_EQ(wrong->kind, CheckOutcome::Kind::wrong);
    EXPECT_EQ(wrong->summary,
              "524288 of 1048576 threads wrote a wrong value; the first at index 524288: 0xEFEFEFEF (still the "
              "poison: that thread never ran)");
}

TEST(CheckOutput, GemmAndErrors) {
    auto gemm = parse_check_output("cudoctor-check: gemm ok 2.38e-07");
    ASSERT_TRUE(gemm);
    EXPECT_EQ(gemm->summary, "the 64×64 SGEMM matches the CPU reference (largest difference 2.38e-07)");
    auto err = parse_check_output(
        "cudoctor-check: error cudaMalloc 35 cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version\n");
    ASSERT_TRUE(err);
    EXPECT_EQ(err->kind, CheckOutcome::Kind::error);
    EXPECT_EQ(err->what, "cudaMalloc");
    EXPECT_EQ(err->code, 35);
    EXPECT_EQ(err->name, "cudaErrorInsufficientDriver");
    EXPECT_EQ(err->text, "CUDA driver version is insufficient for CUDA runtime version");
}

TEST(CheckOutput, GarbageIsNoVerdict) {
    EXPECT_FALSE(parse_check_output(""));
    EXPECT_FALSE(parse_check_output("Segmentation fault (core dumped)\n"));
    EXPECT_FALSE(parse_check_output("cudoctor-check: kernel ok many\n"));
    EXPECT_FALSE(parse_check_output("cudoctor-check: kernel wrong 1 2\n"));
    EXPECT_FALSE(parse_check_output("cudoctor-check: error cudaMalloc x y: z\n"));
    EXPECT_FALSE(parse_check_output("cudoctor-check: \n"));
}

TEST(LoadedLibraries, OriginFromThePath) {
    EXPECT_EQ(driver::library_origin("/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9", "torch"), "pip wheel");
    EXPECT_EQ(driver::library_origin("/venv/lib/python3.11/site-packages/torch/lib/libcudart-9335f6a2.so.12", "torch"), "bundled with torch");
    EXPECT_EQ(driver::library_origin("/home/u/miniconda3/envs/ml/lib/libcudart.so.11.0", "torch"), "conda");
    EXPECT_EQ(driver::library_origin("/usr/local/cuda-12.4/lib64/libcublas.so.12", "torch"), "toolkit");
    EXPECT_EQ(driver::library_origin("/usr/lib/x86_64-linux-gnu/libcudnn.so.8", "tensorflow"), "system");
    EXPECT_EQ(driver::library_origin("/opt/weird/libcudart.so.12", "torch"), "other");
}

TEST(LoadedLibraries, KeepsCudaAndFrameworkLibrariesOnce) {
    auto libs =
        driver::classify_loaded({"/usr/lib/x86_64-linux-gnu/libc.so.6", "/x/site-packages/nvidia/cublas/lib/libcublasLt.so.12",
                                 "/x/site-packages/nvidia/cublas/lib/libcublas.so.12", "/x/site-packages/torch/lib/libtorch_cuda.so",
                                 "/x/site-packages/nvidia/cublas/lib/libcublas.so.12", "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14"},
                                "torch");
    ASSERT_EQ(libs.size(), 4u);
    EXPECT_EQ(libs[0].kind, "libcublasLt");
    EXPECT_EQ(libs[1].kind, "libcublas");
    EXPECT_EQ(libs[2].kind, "framework");
    EXPECT_EQ(libs[2].origin, "bundled with torch");
    EXPECT_EQ(libs[3].kind, "libcuda");
    EXPECT_EQ(libs[3].origin, "system");
}

TEST(Versions, CudaAndCudnnEncodings) {
    EXPECT_EQ(driver::cuda_version_text(12040), "12.4");
    EXPECT_EQ(driver::cuda_version_text(13000), "13.0");
    EXPECT_EQ(driver::cuda_version_text(0), "");
    EXPECT_EQ(driver::cudnn_version_text(91900), "9.19.0");
    EXPECT_EQ(driver::cudnn_version_text(8907), "8.9.7");
}

TEST(ChildProtocol, OpenCallNamesTheCulprit) {
    host::IsolatedResult raw;
    raw.end = host::IsolatedEnd::crashed;
    raw.signal = 11;
    raw.answer = R"({"call":"dlopen x"})"
                 "\n"
                 R"({"returned":"dlopen x"})"
                 "\n"
                 R"({"set":"library","value":"/x/libcuda.so.1"})"
                 "\nnot json\n"
                 R"({"call":"cuInit"})"
                 "\n";
    auto a = driver::collect(raw, std::chrono::milliseconds(100));
    EXPECT_EQ(a.in_flight, "cuInit");
    EXPECT_FALSE(a.complete);
    EXPECT_EQ(a.facts["library"], "/x/libcuda.so.1");
    EXPECT_EQ(a.trouble(), "cuInit crashed with signal 11 (SIGSEGV, Segmentation fault)");
}

TEST(ReportJson, RoundTripAndVerdict) {
    Report r;
    r.tool_version = "0.1.0";
    r.root = "/";
    r.levels.push_back({1, "driver and GPU visible", {{"driver-api", "the driver API answers", Status::pass, "ok"}}});
    EXPECT_TRUE(all_passed(r));
    r.levels[0].steps.push_back(
        {"nvml", "NVML answers", Status::fail, "nvmlInit_v2() = 18", "mismatch", "sudo reboot", "driver-library-mismatch", {{"library", "/x"}}});
    EXPECT_FALSE(all_passed(r));
    EXPECT_EQ(first_failure(r)->id, "nvml");
    const auto text = to_json_text(r);
    EXPECT_NE(text.find("\"verdict\": \"FAIL\""), std::string::npos);
    auto back = from_json_text(text);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, r);
}

TEST(ReportJson, BadInputIsAClearError) {
    EXPECT_EQ(from_json_text("{").error().message, "not a JSON document");
    EXPECT_EQ(from_json_text("{\"schema\":1}").error().message, "not a cudoctor verify report (no \"levels\")");
    EXPECT_EQ(from_json_text("{\"schema\":9,\"levels\":[]}").error().code, Errc::unsupported);
    EXPECT_EQ(from_json_text("{\"schema\":1,\"levels\":[{\"steps\":[{\"status\":7}]}]}").error().code, Errc::parse);
}

}  // namespace
}  // namespace cudoctor::verify
