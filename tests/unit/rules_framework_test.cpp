// The framework rules (src/rules/framework_rules.cpp) on Snapshot literals: each fires on the
// smallest machine that has its problem and stays silent on the nearest healthy one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/rule_cases.hpp"

namespace cudoctor::test::rule_cases {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kVenvSite = "/home/alice/venv/lib/python3.10/site-packages";

/// gpu_machine() with `fw` installed and `tk` as /usr/local/cuda whose nvcc PATH finds first.
snapshot::Snapshot framework_machine(snapshot::Framework fw, snapshot::Toolkit tk = toolkit("12.4.131")) {
    auto s = gpu_machine();
    tk.is_default = true;
    s.environment.cuda_symlink = tk.path;
    s.toolkits = {tk};
    put_first_on_path(s, s.toolkits[0]);
    s.frameworks = {std::move(fw)};
    return s;
}

/// A TensorFlow that loads the system's CUDA (no [and-cuda] wheels).
snapshot::Framework system_tensorflow() {
    auto tf = framework("tensorflow", "2.15.0", "12.2", kVenvSite);
    tf.cudnn = "8.9";
    return tf;
}

/// A cuDNN the loader finds, from a system package.
snapshot::Cudnn system_cudnn(const std::string& version) {
    snapshot::Cudnn c;
    c.version = version;
    c.path = "/usr/lib/x86_64-linux-gnu";
    c.header_version = version;
    c.library_versions = {version};
    c.location = "system";
    c.cuda_major = "12";
    c.loader_visible = true;
    return c;
}

}  // namespace

// --- framework-cpu-only-build -----------------------------------------------------------------

TEST(RulesFramework, CpuTorchOnGpuMachineFires) {
    const auto s = framework_machine(framework("torch", "2.4.0+cpu", std::nullopt));
    const auto found = fired("framework-cpu-only-build", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("torch 2.4.0+cpu is a CPU-only build"));
    EXPECT_TRUE(evidence_mentions(found[0], "torch 2.4.0+cpu: no CUDA"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesFramework, CpuTensorflowOnGpuMachineFires) {
    const auto s = framework_machine(framework("tensorflow", "2.15.0", std::nullopt));
    const auto found = fired("framework-cpu-only-build", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("tensorflow 2.15.0 is a CPU-only build"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesFramework, CudaTorchIsSilent) {
    EXPECT_TRUE(silent("framework-cpu-only-build", framework_machine(framework("torch", "2.4.0+cu124", "12.4"))));
}

TEST(RulesFramework, CpuTorchWithoutGpuIsSilent) {
    auto s = ubuntu_machine();
    s.frameworks = {framework("torch", "2.4.0+cpu", std::nullopt)};
    EXPECT_TRUE(silent("framework-cpu-only-build", s));
}

// --- framework-gpu-arch-unsupported -----------------------------------------------------------
// The torch 2.8 cu128 wheel carries SASS for 7.5 8.0 8.6 9.0 10.0 12.0 and no PTX (pytorch_cuda.tsv).

TEST(RulesFramework, TorchWheelWithoutTheGpusArchFires) {
    auto s = framework_machine(framework("torch", "2.8.0+cu128", "12.8"), toolkit("12.8.93"));
    s.driver = driver("570.124.06");
    s.gpus = {gpu("GeForce GTX 1080", "6.1", "Pascal")};
    const auto found = fired("framework-gpu-arch-unsupported", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("torch 2.8.0+cu128 has no kernels for the GeForce GTX 1080 (compute 6.1)"));
    EXPECT_THAT(found[0].why, HasSubstr("sm_75"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesFramework, TorchWheelWithCompatibleSassIsSilent) {
    // compute 8.9 runs the wheel's sm_86 code (same major, lower minor).
    auto s = framework_machine(framework("torch", "2.8.0+cu128", "12.8"), toolkit("12.8.93"));
    s.driver = driver("570.124.06");
    EXPECT_TRUE(silent("framework-gpu-arch-unsupported", s));
}

TEST(RulesFramework, FatbinWithoutTheGpusArchFires) {
    auto fw = framework("torch", "2.8.0+cu128", "12.8");
    fw.binary_archs = {"sm_80", "sm_90"};
    fw.binary_archs_source = fw.python + "/torch/lib/libtorch_cuda.so";
    auto s = framework_machine(fw, toolkit("12.8.93"));
    s.driver = driver("570.124.06");
    s.gpus = {gpu("Tesla T4", "7.5", "Turing")};  // the wheel's table says sm_75: the binary decides
    const auto found = fired("framework-gpu-arch-unsupported", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("has no kernels for the Tesla T4 (compute 7.5)"));
    EXPECT_TRUE(evidence_mentions(found[0], "fatbin headers: sm_80 sm_90"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesFramework, FatbinWithPtxBelowTheGpuIsSilent) {
    auto fw = framework("torch", "2.8.0+cu128", "12.8");
    fw.binary_archs = {"sm_80", "sm_90", "compute_75"};  // PTX the driver compiles for 7.5
    fw.binary_archs_source = fw.python + "/torch/lib/libtorch_cuda.so";
    auto s = framework_machine(fw, toolkit("12.8.93"));
    s.driver = driver("570.124.06");
    s.gpus = {gpu("Tesla T4", "7.5", "Turing")};
    EXPECT_TRUE(silent("framework-gpu-arch-unsupported", s));
}

TEST(RulesFramework, TensorflowBuildInfoWithoutTheGpusArchFires) {
    auto tf = system_tensorflow();
    tf.cuda_archs = {"sm_70", "sm_75", "compute_80"};
    auto s = framework_machine(tf, toolkit("12.2.140"));
    s.gpus = {gpu("GeForce GTX 1080", "6.1", "Pascal")};
    const auto found = fired("framework-gpu-arch-unsupported", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("tensorflow 2.15.0 has no kernels for the GeForce GTX 1080 (compute 6.1)"));
    EXPECT_THAT(found[0].why, HasSubstr("PTX for compute 8.0"));
}

TEST(RulesFramework, TensorflowPtxCoversANewerGpu) {
    auto tf = system_tensorflow();
    tf.cuda_archs = {"sm_70", "sm_75", "compute_80"};
    auto s = framework_machine(tf, toolkit("12.2.140"));  // the RTX 4090, 8.9: JIT from compute_80
    EXPECT_TRUE(silent("framework-gpu-arch-unsupported", s));
}

// --- tensorflow-cuda-mismatch -----------------------------------------------------------------

TEST(RulesFramework, TensorflowOnSystemCudaOfAnotherMajorFires) {
    const auto s = framework_machine(system_tensorflow(), toolkit("11.8.89"));
    const auto found = fired("tensorflow-cuda-mismatch", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("TensorFlow 2.15.0 was built for CUDA 12.2 / cuDNN 8.9"));
    EXPECT_THAT(found[0].title, HasSubstr("system CUDA is 11.8.89"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesFramework, TensorflowWithCudnnOfAnotherMajorOnLoaderPathFires) {
    auto s = framework_machine(system_tensorflow(), toolkit("12.4.131"));
    s.cudnn = {system_cudnn("9.1.0")};
    const auto found = fired("tensorflow-cuda-mismatch", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("cuDNN on the loader path is 9.1.0"));
    EXPECT_TRUE(evidence_mentions(found[0], "cuDNN 9.1.0"));
}

TEST(RulesFramework, TensorflowOnMatchingSystemMajorsIsSilent) {
    // CUDA 12.4 for a 12.2 build and cuDNN 8.9.7 for 8.9: TensorFlow loads by major.
    auto s = framework_machine(system_tensorflow(), toolkit("12.4.131"));
    s.cudnn = {system_cudnn("8.9.7")};
    EXPECT_TRUE(silent("tensorflow-cuda-mismatch", s));
}

TEST(RulesFramework, TensorflowWithItsOwnCudaWheelsIsSilent) {
    auto tf = system_tensorflow();
    tf.nvidia_wheels = {"nvidia-cuda-runtime-cu12==12.2.140", "nvidia-cudnn-cu12==8.9.4.25"};  // tensorflow[and-cuda]
    auto s = framework_machine(tf, toolkit("11.8.89"));
    s.cudnn = {system_cudnn("9.1.0")};
    EXPECT_TRUE(silent("tensorflow-cuda-mismatch", s));
}

// --- extension-build-cuda-mismatch ------------------------------------------------------------

TEST(RulesFramework, NvccOfAnotherMajorThanTorchFires) {
    const auto s = framework_machine(framework("torch", "2.4.0+cu121", "12.1"), toolkit("11.8.89"));
    const auto found = fired("extension-build-cuda-mismatch", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_THAT(found[0].title, HasSubstr("nvcc on PATH is CUDA 11.8.89 but torch 2.4.0+cu121 was built with CUDA 12.1"));
    EXPECT_TRUE(evidence_mentions(found[0], "/usr/local/cuda-11.8/bin/nvcc"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesFramework, ExtensionFixNamesAnInstalledToolkitOfTorchsMajor) {
    // It used to say `export CUDA_HOME=/usr/local/cuda-12.1` on machines without that folder.
    auto s = framework_machine(framework("torch", "2.4.0+cu121", "12.1"), toolkit("11.8.89"));
    s.toolkits.push_back(toolkit("12.4.131"));
    const auto found = fired("extension-build-cuda-mismatch", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].fix, HasSubstr("export CUDA_HOME=/usr/local/cuda-12.4\n"));
    EXPECT_THAT(found[0].fix, Not(HasSubstr("cuda-12.1")));
}

TEST(RulesFramework, ExtensionFixInstallsTorchsCudaWhenNoneIsInstalled) {
    const auto s = framework_machine(framework("torch", "2.4.0+cu121", "12.1"), toolkit("11.8.89"));
    const auto found = fired("extension-build-cuda-mismatch", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].fix, HasSubstr("no CUDA 12 toolkit with nvcc is installed"));
    EXPECT_THAT(found[0].fix, HasSubstr("sudo apt-get install -y cuda-toolkit-12-1"));
    EXPECT_THAT(found[0].fix, HasSubstr("export CUDA_HOME=/usr/local/cuda-12.1\n"));
}

TEST(RulesFramework, NvccOfTorchsMajorWithAnotherMinorIsSilent) {
    // torch.utils.cpp_extension accepts another minor of the same major.
    EXPECT_TRUE(silent("extension-build-cuda-mismatch", framework_machine(framework("torch", "2.4.0+cu121", "12.1"), toolkit("12.4.131"))));
}

TEST(RulesFramework, NoNvccOnPathBuildsNoExtension) {
    auto s = framework_machine(framework("torch", "2.4.0+cu121", "12.1"), toolkit("11.8.89"));
    s.toolkits[0].first_on_path = false;
    s.environment.nvcc_on_path.clear();
    EXPECT_TRUE(silent("extension-build-cuda-mismatch", s));
}

// --- triton-compiler-missing ------------------------------------------------------------------

namespace {
snapshot::Snapshot triton_machine(bool c_compiler, bool python_headers) {
    auto s = framework_machine(framework("triton", "3.0.0", std::nullopt, kVenvSite));
    s.pythons = {{"/home/alice/venv/bin/python", "3.10", kVenvSite, python_headers}};
    if (!c_compiler) s.platform.c_compiler = "";
    return s;
}
}  // namespace

TEST(RulesFramework, TritonWithoutCompilerAndHeadersFires) {
    const auto found = fired("triton-compiler-missing", triton_machine(false, false));
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_THAT(found[0].title, HasSubstr("Triton 3.0.0 is installed"));
    EXPECT_THAT(found[0].title, HasSubstr("no C compiler"));
    EXPECT_THAT(found[0].title, HasSubstr("no Python.h for Python 3.10"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesFramework, TritonWithoutPythonHeadersAloneFires) {
    const auto found = fired("triton-compiler-missing", triton_machine(true, false));
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("no Python.h for Python 3.10"));
    EXPECT_THAT(found[0].title, ::testing::Not(HasSubstr("no C compiler")));
}

TEST(RulesFramework, TritonWithCompilerAndHeadersIsSilent) { EXPECT_TRUE(silent("triton-compiler-missing", triton_machine(true, true))); }

TEST(RulesFramework, MissingCompilerWithoutTritonIsSilent) {
    auto s = triton_machine(false, false);
    s.frameworks = {framework("torch", "2.4.0+cu124", "12.4", kVenvSite)};
    EXPECT_TRUE(silent("triton-compiler-missing", s));
}

}  // namespace cudoctor::test::rule_cases
