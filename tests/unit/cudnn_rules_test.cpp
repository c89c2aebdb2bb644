// The cuDNN rules on Snapshot literals, for the wrong answers of issue #19: a copy's CUDA major
// read from its libraries (not from the toolkit folder it was copied into), fixes that never copy
// cuDNN across CUDA majors, a wheel's 9.1.0.70 compared as the release 9.1.0, and a framework's
// pip cuDNN wheel never blamed on another framework.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "recipe/install.hpp"
#include "support/rule_cases.hpp"

namespace cudoctor::test::rule_cases {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

snapshot::Cudnn cudnn_copy(const std::string& version, const std::string& path, const std::string& location,
                           const std::string& cuda_major = {}) {
    snapshot::Cudnn c;
    c.version = version;
    c.path = path;
    const auto v = Version::parse(version);
    c.header_version = v && v->size() > 3 ? v->truncated(3).str() : version;  // the header has no build number
    c.library_versions = {version};
    c.location = location;
    c.cuda_major = cuda_major;
    c.loader_visible = true;
    return c;
}

/// gpu_machine() with the toolkits `versions`, the first one /usr/local/cuda.
snapshot::Snapshot machine_with_toolkits(const std::vector<std::string>& versions) {
    auto s = gpu_machine();
    for (const auto& v : versions) s.toolkits.push_back(toolkit(v));
    s.toolkits.front().is_default = true;
    s.environment.cuda_symlink = s.toolkits.front().path;
    return s;
}

const std::string kSite = "/home/alice/.local/lib/python3.10/site-packages";

}  // namespace

// --- the copy's CUDA major comes from its libraries --------------------------------------------

TEST(CudnnRules, Cuda11BuildCopiedIntoACuda12ToolkitFires) {
    // cuDNN 8.9.7 has builds for CUDA 11 and 12; this copy's libraries link libcublas.so.11.
    auto s = machine_with_toolkits({"12.4.131"});
    s.cudnn = {cudnn_copy("8.9.7", "/usr/local/cuda-12.4/targets/x86_64-linux/lib", "toolkit", "11")};
    const auto found = fired("cudnn-cuda-mismatch", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("cuDNN 8.9.7 at /usr/local/cuda-12.4/targets/x86_64-linux/lib is built for CUDA 11"));
    EXPECT_THAT(found[0].title, HasSubstr("is CUDA 12"));
    // The cuDNN 8.9.7 build for CUDA 12, from NVIDIA's repository (recipe::cudnn_install).
    EXPECT_THAT(found[0].fix, HasSubstr("grep -m1 -E '^8\\.9\\.7\\.[0-9.]*-1\\+cuda12\\.'"));
    EXPECT_THAT(found[0].fix, Not(HasSubstr("cuda11")));
    // One voice: the install block is recipe::cudnn_install's, whole.
    EXPECT_THAT(found[0].fix, HasSubstr(recipe::cudnn_fix(s, Version({8, 9, 7}), Version({12}), kb::Kb::builtin())));
    // The copy goes first: in the toolkit's lib folder it would still be loaded before the new one.
    EXPECT_THAT(found[0].fix, HasSubstr("sudo rm -f /usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudnn*"));
}

TEST(CudnnRules, Cuda12BuildInACuda12ToolkitIsSilent) {
    auto s = machine_with_toolkits({"12.4.131"});
    s.cudnn = {cudnn_copy("8.9.7", "/usr/local/cuda-12.4/targets/x86_64-linux/lib", "toolkit", "12")};
    EXPECT_TRUE(silent("cudnn-cuda-mismatch", s));
}

// --- cudnn-missing-in-default-toolkit never copies across CUDA majors --------------------------

TEST(CudnnRules, MissingInDefaultDoesNotCopyACuda11BuildIntoCuda12) {
    auto s = machine_with_toolkits({"12.4.131", "11.8.89"});
    s.cudnn = {cudnn_copy("8.9.7", "/usr/local/cuda-11.8/targets/x86_64-linux/lib", "toolkit", "11")};
    const auto found = fired("cudnn-missing-in-default-toolkit", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].fix, Not(HasSubstr("cp ")));
    EXPECT_THAT(found[0].fix, Not(HasSubstr("-cuda-N")));  // no unfilled placeholder
    EXPECT_THAT(found[0].fix, HasSubstr("install cuDNN 8.9.7 built for CUDA 12"));
    EXPECT_THAT(found[0].fix, HasSubstr("grep -m1 -E '^8\\.9\\.7\\.[0-9.]*-1\\+cuda12\\.'"));
    EXPECT_THAT(found[0].fix, HasSubstr(recipe::cudnn_fix(s, Version({8, 9, 7}), Version({12}), kb::Kb::builtin())));
    EXPECT_TRUE(evidence_mentions(found[0], "cuDNN 8.9.7 for CUDA 11"));
}

TEST(CudnnRules, MissingInDefaultDoesNotCopyABuildOfUnknownMajor) {
    // Nothing says which CUDA this 8.9.7 is for (builds exist for 11 and 12): no copy.
    auto s = machine_with_toolkits({"12.4.131", "11.8.89"});
    s.cudnn = {cudnn_copy("8.9.7", "/usr/local/cuda-11.8/targets/x86_64-linux/lib", "toolkit")};
    const auto found = fired("cudnn-missing-in-default-toolkit", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].fix, Not(HasSubstr("cp ")));
    EXPECT_THAT(found[0].fix, HasSubstr("-1\\+cuda12\\.')"));
}

TEST(CudnnRules, MissingInDefaultCopiesABuildOfTheDefaultsMajor) {
    auto s = machine_with_toolkits({"12.4.131", "12.1.105"});
    s.cudnn = {cudnn_copy("9.1.0", "/usr/local/cuda-12.1/targets/x86_64-linux/lib", "toolkit", "12")};
    const auto found = fired("cudnn-missing-in-default-toolkit", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].fix, HasSubstr("sudo cp -P /usr/local/cuda-12.1/targets/x86_64-linux/lib/libcudnn* /usr/local/cuda-12.4/lib64/"));
    EXPECT_THAT(found[0].fix, HasSubstr("built for CUDA 12"));
}

TEST(CudnnRules, MissingInDefaultInstallsTheNewestWhenTheReleaseHasNoBuildForIt) {
    // cuDNN 8.2.1 was built for CUDA 10.2 and 11.x only: the default CUDA 12.4 needs another release.
    auto s = machine_with_toolkits({"12.4.131", "11.3.109"});
    s.cudnn = {cudnn_copy("8.2.1", "/usr/local/cuda-11.3/targets/x86_64-linux/lib", "toolkit", "11")};
    const auto found = fired("cudnn-missing-in-default-toolkit", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].fix, Not(HasSubstr("cp ")));
    EXPECT_THAT(found[0].fix, Not(HasSubstr("8.2.1*")));
    EXPECT_THAT(found[0].fix, HasSubstr("cuda-12"));
}

// --- one version model: a wheel's 9.1.0.70 is the release 9.1.0 --------------------------------

TEST(CudnnRules, WheelBuildNumberFindsTheReleaseRows) {
    const auto& kb = kb::Kb::builtin();
    EXPECT_EQ(kb.cuda_majors_for_cudnn(*Version::parse("9.1.0.70")), kb.cuda_majors_for_cudnn(*Version::parse("9.1.0")));
    EXPECT_EQ(kb.cuda_majors_for_cudnn(*Version::parse("9.10.2.21")), kb.cuda_majors_for_cudnn(*Version::parse("9.10.2")));
    EXPECT_FALSE(kb.cuda_majors_for_cudnn(*Version::parse("9.10.2.21")).empty());
}

TEST(CudnnRules, WheelVersionWithBuildNumberInAToolkitOfItsMajorIsSilent) {
    auto s = machine_with_toolkits({"12.4.131"});
    s.cudnn = {cudnn_copy("9.1.0.70", "/usr/local/cuda-12.4/targets/x86_64-linux/lib", "toolkit")};
    EXPECT_TRUE(silent("cudnn-cuda-mismatch", s));
}

TEST(CudnnRules, WheelVersionWithBuildNumberOfAnotherMajorFiresWithTheRelease) {
    // 9.10.2 has builds for CUDA 11.8 and 12 only.
    auto s = machine_with_toolkits({"13.0.48"});
    s.cudnn = {cudnn_copy("9.10.2.21", "/usr/local/cuda-13.0/targets/x86_64-linux/lib", "toolkit")};
    const auto found = fired("cudnn-cuda-mismatch", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("is built for CUDA 11/12"));
    EXPECT_THAT(found[0].fix, Not(HasSubstr("9.10.2.21")));  // packages speak of the release
}

TEST(CudnnRules, BareMajorNamesNoRelease) {
    // Only libcudnn.so.9 (no header, no full library name): which 9.x it is, and so which CUDA it
    // is built for, is unknown. 9 is not 9.0.0 (whose builds are for CUDA 11 and 12 only).
    auto s = machine_with_toolkits({"13.0.48"});
    auto c = cudnn_copy("9", "/usr/local/cuda-13.0/targets/x86_64-linux/lib", "toolkit");
    c.header_version.clear();
    s.cudnn = {c};
    EXPECT_TRUE(silent("cudnn-cuda-mismatch", s));
}

// --- a framework's pip cuDNN wheel is that framework's -----------------------------------------

TEST(CudnnRules, TorchsCudnnWheelIsNotBlamedOnTensorflow213) {
    auto s = gpu_machine();
    auto torch = framework("torch", "2.4.0+cu121", "12.1", kSite);
    torch.nvidia_wheels = {"nvidia-cudnn-cu12==9.1.0.70", "nvidia-cuda-runtime-cu12==12.1.105"};
    auto tf = framework("tensorflow", "2.13.0", "11.8", kSite);
    tf.cudnn = "8";
    s.frameworks = {torch, tf};
    s.cudnn = {cudnn_copy("9.1.0.70", kSite + "/nvidia/cudnn/lib", "pip", "12")};
    EXPECT_TRUE(silent("cudnn-cuda-mismatch", s));
}

TEST(CudnnRules, Tensorflow213NeverLoadsAPipCudnnWheel) {
    // No framework declares the wheel: TensorFlow 2.13 still searches the system for its cuDNN.
    auto s = gpu_machine();
    s.frameworks = {framework("tensorflow", "2.13.0", "11.8", kSite)};
    s.cudnn = {cudnn_copy("9.1.0.70", kSite + "/nvidia/cudnn/lib", "pip", "12")};
    EXPECT_TRUE(silent("cudnn-cuda-mismatch", s));
}

TEST(CudnnRules, TheWheelsOwnerOfAnotherMajorIsStillBlamed) {
    auto s = gpu_machine("580.65.06");
    auto torch = framework("torch", "2.9.0+cu130", "13.0", kSite);
    torch.nvidia_wheels = {"nvidia-cudnn-cu13==9.13.0.50"};
    s.frameworks = {torch, framework("tensorflow", "2.13.0", "11.8", kSite)};
    s.cudnn = {cudnn_copy("9.10.2.21", kSite + "/nvidia/cudnn/lib", "pip", "12")};
    const auto found = fired("cudnn-cuda-mismatch", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("torch 2.9.0+cu130 is CUDA 13"));
    EXPECT_THAT(found[0].title, Not(HasSubstr("tensorflow")));
}

}  // namespace cudoctor::test::rule_cases
