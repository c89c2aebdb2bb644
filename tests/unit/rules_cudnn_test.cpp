// The cuDNN rules (src/rules/cudnn_rules.cpp) on Snapshot literals: each fires on the smallest
// machine that has its problem and stays silent on the nearest healthy one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/rule_cases.hpp"

namespace cudoctor::test::rule_cases {
namespace {

using ::testing::HasSubstr;

/// A cuDNN copy as the cuDNN probe records it: header and library of one release.
snapshot::Cudnn cudnn(const std::string& version, const std::string& path, const std::string& location) {
    snapshot::Cudnn c;
    c.version = version;
    c.path = path;
    c.header_version = version;
    c.library_versions = {version};
    c.location = location;
    c.loader_visible = true;
    return c;
}

/// gpu_machine() with the toolkits `versions`, the first one /usr/local/cuda.
snapshot::Snapshot with_toolkits(const std::vector<std::string>& versions) {
    auto s = gpu_machine();
    for (const auto& v : versions) s.toolkits.push_back(toolkit(v));
    s.toolkits.front().is_default = true;
    s.environment.cuda_symlink = s.toolkits.front().path;
    return s;
}

const std::string kAliceSite = "/home/alice/.local/lib/python3.10/site-packages";

}  // namespace

// --- cudnn-cuda-mismatch ----------------------------------------------------------------------
// cuDNN 9.17.0 has builds for CUDA 12 and 13 only.

TEST(RulesCudnn, CudnnInToolkitOfAnotherMajorFires) {
    auto s = with_toolkits({"11.8.89"});
    s.cudnn = {cudnn("9.17.0", "/usr/local/cuda-11.8/lib64", "toolkit")};
    const auto found = fired("cudnn-cuda-mismatch", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("cuDNN 9.17.0 at /usr/local/cuda-11.8/lib64 is built for CUDA 12/13"));
    EXPECT_THAT(found[0].title, HasSubstr("is CUDA 11"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesCudnn, CudnnInToolkitOfASupportedMajorIsSilent) {
    auto s = with_toolkits({"12.4.131"});
    s.cudnn = {cudnn("9.17.0", "/usr/local/cuda-12.4/lib64", "toolkit")};
    EXPECT_TRUE(silent("cudnn-cuda-mismatch", s));
}

TEST(RulesCudnn, CudnnBelongsToTheInnermostToolkitNotToUbuntusInUsr) {
    // Ubuntu's nvidia-cuda-toolkit is a CUDA 11.5 in /usr, a folder that also holds
    // /usr/local/cuda-12.4 and the cuDNN copied there: that cuDNN is 12.4's, not 11.5's.
    auto s = with_toolkits({"12.4.131"});
    auto distro = toolkit("11.5.1", "/usr");
    distro.install_method = snapshot::InstallMethod::deb;
    s.toolkits.push_back(distro);
    s.cudnn = {cudnn("9.17.0", "/usr/local/cuda-12.4/targets/x86_64-linux/lib", "toolkit")};
    EXPECT_TRUE(silent("cudnn-cuda-mismatch", s));
}

TEST(RulesCudnn, PipCudnnWheelOfAnotherMajorThanTorchFires) {
    auto s = gpu_machine("580.65.06");
    s.frameworks = {framework("torch", "2.9.0+cu130", "13.0", kAliceSite)};
    auto wheel = cudnn("9.10.2.21", kAliceSite + "/nvidia/cudnn/lib", "pip");
    wheel.cuda_major = "12";  // nvidia-cudnn-cu12
    s.cudnn = {wheel};
    const auto found = fired("cudnn-cuda-mismatch", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("is built for CUDA 12, but torch 2.9.0+cu130 is CUDA 13"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesCudnn, PipCudnnWheelOfTorchsMajorIsSilent) {
    auto s = gpu_machine("580.65.06");
    s.frameworks = {framework("torch", "2.9.0+cu130", "13.0", kAliceSite)};
    auto wheel = cudnn("9.13.0.50", kAliceSite + "/nvidia/cudnn/lib", "pip");
    wheel.cuda_major = "13";  // nvidia-cudnn-cu13
    s.cudnn = {wheel};
    EXPECT_TRUE(silent("cudnn-cuda-mismatch", s));
}

TEST(RulesCudnn, PipCudnnOfAnotherSiteIsNotTorchs) {
    // torch in another site-packages folder does not load this wheel.
    auto s = gpu_machine("580.65.06");
    s.frameworks = {framework("torch", "2.9.0+cu130", "13.0", "/opt/venv/lib/python3.12/site-packages")};
    auto wheel = cudnn("9.10.2.21", kAliceSite + "/nvidia/cudnn/lib", "pip");
    wheel.cuda_major = "12";
    s.cudnn = {wheel};
    EXPECT_TRUE(silent("cudnn-cuda-mismatch", s));
}

// --- cudnn-header-library-mismatch ------------------------------------------------------------

TEST(RulesCudnn, HeaderAndLibraryOfDifferentReleasesFires) {
    auto s = with_toolkits({"12.4.131"});
    auto c = cudnn("9.3.0", "/usr/lib/x86_64-linux-gnu", "system");
    c.header_version = "9.1.0";
    c.library_versions = {"9.3.0"};
    s.cudnn = {c};
    const auto found = fired("cudnn-header-library-mismatch", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("cuDNN headers say 9.1.0 but the library at /usr/lib/x86_64-linux-gnu is 9.3.0"));
    EXPECT_TRUE(evidence_mentions(found[0], "cudnn_version.h"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesCudnn, LibraryBuildNumberBeyondHeaderIsOneRelease) {
    // libcudnn.so.9.1.0.70 and a cudnn_version.h of 9.1.0 are the same release.
    auto s = with_toolkits({"12.4.131"});
    auto c = cudnn("9.1.0", "/usr/lib/x86_64-linux-gnu", "system");
    c.library_versions = {"9.1.0.70"};
    s.cudnn = {c};
    EXPECT_TRUE(silent("cudnn-header-library-mismatch", s));
}

TEST(RulesCudnn, LibraryWithoutHeaderIsNoMismatch) {
    auto s = with_toolkits({"12.4.131"});
    auto c = cudnn("9.3.0", "/usr/lib/x86_64-linux-gnu", "system");
    c.header_version = "";  // runtime package only, no libcudnn9-dev
    s.cudnn = {c};
    EXPECT_TRUE(silent("cudnn-header-library-mismatch", s));
}

// --- cudnn-missing-in-default-toolkit ---------------------------------------------------------

TEST(RulesCudnn, CudnnOnlyInANonDefaultToolkitFires) {
    auto s = with_toolkits({"12.4.131", "11.8.89"});
    s.cudnn = {cudnn("8.9.7", "/usr/local/cuda-11.8/lib64", "toolkit")};
    const auto found = fired("cudnn-missing-in-default-toolkit", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_THAT(found[0].title, HasSubstr("cuDNN is only in /usr/local/cuda-11.8/lib64"));
    EXPECT_THAT(found[0].title, HasSubstr("not in the default CUDA 12.4.131 (/usr/local/cuda-12.4)"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesCudnn, CudnnInTheDefaultToolkitIsSilent) {
    auto s = with_toolkits({"12.4.131", "11.8.89"});
    s.cudnn = {cudnn("9.1.0", "/usr/local/cuda-12.4/lib64", "toolkit")};
    EXPECT_TRUE(silent("cudnn-missing-in-default-toolkit", s));
}

TEST(RulesCudnn, SystemCudnnServesEveryToolkit) {
    auto s = with_toolkits({"12.4.131", "11.8.89"});
    s.cudnn = {cudnn("8.9.7", "/usr/local/cuda-11.8/lib64", "toolkit"), cudnn("9.1.0", "/usr/lib/x86_64-linux-gnu", "system")};
    EXPECT_TRUE(silent("cudnn-missing-in-default-toolkit", s));
}

}  // namespace cudoctor::test::rule_cases
