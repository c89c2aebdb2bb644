// Verdicts on real OpenCV configure logs: each "skipped" with its reason and fix, the arch
// list judged against a GPU.

#include <gtest/gtest.h>

#include "gpucode/gpus.hpp"
#include "opencv/log_report.hpp"
#include "support/files.hpp"

namespace cudoctor::opencv {
namespace {

std::string fixture(const std::string& name) {
    auto text = test::read_if_present(std::string(CUDOCTOR_SOURCE_DIR) + "/tests/fixtures/opencv/" + name);
    EXPECT_TRUE(text) << name;
    return text.value_or("");
}

gpucode::TargetGpu gpu(const std::string& spec) { return *gpucode::resolve_gpu(kb::Kb::builtin(), spec); }

LogReport judge(const std::string& name, std::vector<gpucode::TargetGpu> gpus = {}, bool build_information = false) {
    LogContext ctx{build_information, std::move(gpus), &kb::Kb::builtin()};
    return judge_log(formats::parse_opencv_build_log(fixture(name)), ctx);
}

const Verdict* topic(const LogReport& r, std::string_view t) {
    for (const auto& v : r.verdicts)
        if (v.topic == t) return &v;
    return nullptr;
}

TEST(OpencvLogReport, CudaCudnnAndNumpyAllEnabled) {
    const auto r = judge("cuda11_cudnn8_zoneminder.log", {gpu("8.0")});
    ASSERT_NE(topic(r, "CUDA"), nullptr);
    EXPECT_EQ(topic(r, "CUDA")->status, Status::enabled);
    EXPECT_EQ(topic(r, "CUDA")->summary, "YES, CUDA 11.0 (CUFFT CUBLAS FAST_MATH)");
    EXPECT_EQ(topic(r, "cuDNN")->status, Status::enabled);
    EXPECT_EQ(topic(r, "DNN CUDA backend")->status, Status::skipped);  // 3.5 and 3.7 in the list
    EXPECT_EQ(topic(r, "Python 3")->status, Status::enabled);
    EXPECT_EQ(topic(r, "GPU architectures")->status, Status::enabled);
    EXPECT_NE(topic(r, "GPU architectures")->summary.find("runs natively via sm_80"), std::string::npos);
}

TEST(OpencvLogReport, ArchListWithoutThisGpuIsNoKernelImage) {
    // 8.6 only, judged for an RTX 4090 (8.9): binary-compatible SASS, runs.
    const auto ada = judge("cuda12_arch86_dnn_24137.log", {gpu("RTX 4090")});
    EXPECT_EQ(topic(ada, "GPU architectures")->status, Status::enabled);
    // …and for an H100 (9.0): a new major, no PTX, cannot run.
    const auto hopper = judge("cuda12_arch86_dnn_24137.log", {gpu("9.0")});
    const auto* v = topic(hopper, "GPU architectures");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->status, Status::failed);
    EXPECT_NE(v->reason.find("no kernel image is available"), std::string::npos);
    EXPECT_EQ(v->fix, "-D CUDA_ARCH_BIN=9.0");
    EXPECT_TRUE(hopper.problems());
}

TEST(OpencvLogReport, PtxArchRunsThroughJit) {
    const auto r = judge("opencv3_old_format_9932.log", {gpu("7.5")});
    const auto* v = topic(r, "GPU architectures");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->status, Status::info);
    EXPECT_NE(v->summary.find("via compute_30"), std::string::npos);
}

TEST(OpencvLogReport, CudnnFixForACudaWithoutCudnn9NamesNoPackageThatDoesNotExist) {
    // A CUDA 10.0 configure log: there is no libcudnn9-dev-cuda-10; the newest cuDNN the KB has
    // built for CUDA 10.0 is named instead.
    const auto r = judge("cudnn_not_found_16449.log");
    std::string fixes;
    for (const auto& v : r.verdicts) fixes += v.fix + "\n";
    EXPECT_EQ(fixes.find("libcudnn9"), std::string::npos) << fixes;
    const auto newest = kb::Kb::builtin().newest_cudnn_for(Version({10, 0}));
    ASSERT_TRUE(newest);
    EXPECT_LT(newest->major(), 9);
    EXPECT_NE(fixes.find("install cuDNN " + newest->str() + " for CUDA 10.0"), std::string::npos) << fixes;
}

TEST(OpencvLogReport, CudnnNotFoundSkipsTheDnnBackend) {
    const auto r = judge("cudnn_no_20319.log");
    const auto* cudnn = topic(r, "cuDNN");
    ASSERT_NE(cudnn, nullptr);
    EXPECT_EQ(cudnn->status, Status::skipped);
    EXPECT_NE(cudnn->fix.find("sudo apt-get install -y libcudnn9-dev-cuda-11"), std::string::npos);
    const auto* dnn = topic(r, "DNN CUDA backend");
    ASSERT_NE(dnn, nullptr);
    EXPECT_EQ(dnn->status, Status::skipped);
    EXPECT_EQ(dnn->reason, "needs cuDNN, which was not found");
    EXPECT_TRUE(r.problems());
}

TEST(OpencvLogReport, CouldNotFindWithVersionReadPointsAtTheCache) {
    const auto r = judge("cudnn_not_found_16449.log");
    const auto* cudnn = topic(r, "cuDNN");
    ASSERT_NE(cudnn, nullptr);
    EXPECT_NE(cudnn->reason.find("Could NOT find CUDNN (missing: CUDNN_LIBRARY CUDNN_INCLUDE_DIR)"), std::string::npos);
    EXPECT_NE(cudnn->reason.find("stale CMakeCache.txt"), std::string::npos);
    EXPECT_EQ(topic(r, "configure")->status, Status::failed);
}

TEST(OpencvLogReport, ConfigureErrorsExplained) {
    const auto cc53 = judge("dnn_cc53_15930.log", {gpu("7.5")});
    ASSERT_NE(topic(cc53, "configure"), nullptr);
    EXPECT_EQ(topic(cc53, "configure")->fix, "-D CUDA_ARCH_BIN=7.5");
    const auto cudnn = judge("dnn_requires_cudnn_chrismeunier5.log");
    EXPECT_NE(topic(cudnn, "configure")->fix.find("-D OPENCV_DNN_CUDA=OFF"), std::string::npos);
    const auto empty = judge("empty_arch_25742.log", {gpu("8.9")});
    EXPECT_NE(topic(empty, "configure")->reason.find("host gcc is newer"), std::string::npos);
    EXPECT_EQ(topic(empty, "GPU architectures")->status, Status::failed);
    EXPECT_EQ(topic(empty, "GPU architectures")->fix, "-D CUDA_ARCH_BIN=8.9");
}

TEST(OpencvLogReport, PythonUnavailableAndNumpyMissing) {
    const auto r = judge("python3_unavailable_23720.log");
    const auto* py = topic(r, "Python 3");
    ASSERT_NE(py, nullptr);
    EXPECT_EQ(py->status, Status::skipped);
    EXPECT_NE(py->summary.find("only \"Python (for build)\": D:/Python/Python310/python.exe"), std::string::npos);
    EXPECT_NE(py->fix.find("python3-numpy"), std::string::npos);

    LogContext ctx{false, {}, nullptr};
    const auto numpy = judge_log(formats::parse_opencv_build_log("  Python 3:\n    Interpreter:  /usr/bin/python3 (ver 3.10.12)\n"
                                                                 "    Libraries:    /usr/lib/x86_64-linux-gnu/libpython3.10.so\n"
                                                                 "    numpy:        NO (Python3 wrappers can not be generated)\n"),
                                 ctx);
    ASSERT_NE(topic(numpy, "Python 3"), nullptr);
    EXPECT_EQ(topic(numpy, "Python 3")->summary, "numpy: NO (Python3 wrappers can not be generated)");
    EXPECT_NE(topic(numpy, "Python 3")->fix.find("PYTHON3_NUMPY_INCLUDE_DIRS"), std::string::npos);
}

TEST(OpencvLogReport, ModulesSkippedWithReasons) {
    const auto r = judge("buildkit_modules_opencv_cuda_docker10.log");
    EXPECT_EQ(topic(r, "CUDA modules")->status, Status::enabled);
    const auto* java = topic(r, "module java");
    ASSERT_NE(java, nullptr);
    EXPECT_EQ(java->fix, "sudo apt-get install -y ant default-jdk");
    ASSERT_NE(topic(r, "module ts"), nullptr);
    EXPECT_EQ(topic(r, "module ts")->fix, "-D BUILD_TESTS=ON");
}

TEST(OpencvLogReport, DebianBuildInformationIsBuiltWithoutCuda) {
    const auto r = judge("debian12_python3_opencv_4.6.0_build_information.txt", {}, /*build_information=*/true);
    const auto* cuda = topic(r, "CUDA");
    ASSERT_NE(cuda, nullptr);
    EXPECT_EQ(cuda->status, Status::skipped);
    EXPECT_EQ(cuda->summary, "not part of this build");
    EXPECT_NE(cuda->reason.find("cuda* modules are listed as Unavailable"), std::string::npos);
    EXPECT_EQ(topic(r, "Python 3"), nullptr);  // the binding that answered is the one running
    EXPECT_EQ(topic(r, "cuDNN"), nullptr);
}

TEST(OpencvLogReport, CudaNotDetected) {
    const auto r = judge("cuda_not_detected_pr23021.log");
    EXPECT_EQ(topic(r, "CUDA")->status, Status::skipped);
    EXPECT_TRUE(r.recognized());
}

TEST(OpencvLogReport, GarbageIsNotRecognized) {
    LogContext ctx;
    EXPECT_FALSE(judge_log(formats::parse_opencv_build_log("just some text\nkey: value\n"), ctx).recognized());
}

}  // namespace
}  // namespace cudoctor::opencv
