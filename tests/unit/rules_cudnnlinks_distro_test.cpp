// distro-cuda-toolkit-old on Snapshot literals (named rules_*: the rule coverage test reads the
// fired/silent cases of tests/unit/rules_*_test.cpp only): it fires where the distribution's old
// nvcc wins on PATH and that matters for the machine, and stays silent where it does not; the
// findings it explains follow from it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/rule_cases.hpp"

namespace cudoctor::test::rule_cases {
namespace cudnnlinks_distro_test {

using ::testing::HasSubstr;

/// The distribution's nvidia-cuda-toolkit as the toolkit probe records it (Ubuntu 22.04: 11.5.1).
snapshot::Toolkit distro_toolkit(const std::string& version = "11.5.1") {
    auto tk = toolkit(version, "/usr/lib/nvidia-cuda-toolkit");
    tk.version_source = "dpkg";
    tk.install_method = snapshot::InstallMethod::deb;
    tk.found_by = {"PATH", "dpkg"};
    return tk;
}

/// An Ubuntu 22.04 machine with an RTX 3070 (compute 8.6) or an RTX 4060 Ti (8.9), with the
/// distribution's toolkit first (and only) on PATH as /usr/bin/nvcc.
snapshot::Snapshot distro_machine(const std::string& cc) {
    auto s = gpu_machine();
    s.gpus = {cc == "8.9" ? gpu("GeForce RTX 4060 Ti", cc, "Ada Lovelace") : gpu("GeForce RTX 3070", cc, "Ampere")};
    s.toolkits = {distro_toolkit()};
    put_first_on_path(s, s.toolkits.front());
    s.environment.nvcc_on_path.front() = "/usr/bin/nvcc";
    return s;
}

// --- distro-cuda-toolkit-old ----------------------------------------------------------------------

TEST(CudnnlinksDistroRules, DistroNvccBeatingANewerNvidiaToolkitFiresAndPutsNvidiasFirst) {
    auto s = distro_machine("8.6");
    auto nvidia = toolkit("12.4.131");
    nvidia.is_default = true;
    nvidia.on_path = true;
    s.toolkits.push_back(nvidia);
    s.environment.cuda_symlink = nvidia.path;
    const auto found = fired("distro-cuda-toolkit-old", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_EQ(found[0].title, "nvcc on PATH is the distribution's nvidia-cuda-toolkit, CUDA 11.5.1 (/usr/lib/nvidia-cuda-toolkit/bin/nvcc)");
    EXPECT_THAT(found[0].why, HasSubstr("CUDA 12.4.131 (/usr/local/cuda-12.4) is installed but loses on PATH"));
    EXPECT_EQ(found[0].fix,
              "export PATH=/usr/local/cuda/bin${PATH:+:$PATH}\n"
              "export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\n"
              "# to keep it: add the two lines above to ~/.bashrc\n"
              "# or remove the distribution's old one: sudo apt-get remove nvidia-cuda-toolkit");
    // nvcc-shadowed says the same from the other side: it follows from this one.
    const auto shadowed = fired("nvcc-shadowed", s);
    ASSERT_EQ(shadowed.size(), 1u);
    EXPECT_EQ(shadowed[0].consequence_of, "distro-cuda-toolkit-old");
}

TEST(CudnnlinksDistroRules, DistroNvccTooOldForTheGpuFiresAndInstallsNvidiasToolkit) {
    auto s = distro_machine("8.9");  // Ada needs CUDA 11.8
    const auto found = fired("distro-cuda-toolkit-old", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].why, HasSubstr("the GeForce RTX 4060 Ti (compute 8.9) needs CUDA ≥ 11.8"));
    EXPECT_THAT(found[0].fix, HasSubstr("cuda-toolkit-11-8"));
    EXPECT_THAT(found[0].fix, HasSubstr("# or remove the distribution's old one: sudo apt-get remove nvidia-cuda-toolkit"));
    const auto arch = fired("gpu-arch-unsupported-by-toolkit", s);
    ASSERT_EQ(arch.size(), 1u);
    EXPECT_EQ(arch[0].consequence_of, "distro-cuda-toolkit-old");
}

TEST(CudnnlinksDistroRules, OnlyTheDistroToolkitsArchFindingFollowsFromIt) {
    auto s = distro_machine("8.9");
    s.toolkits.push_back(toolkit("11.4.152"));  // NVIDIA's 11.4, also too old for Ada, not on PATH
    ASSERT_EQ(fired("distro-cuda-toolkit-old", s).size(), 1u);
    const auto arch = fired("gpu-arch-unsupported-by-toolkit", s);
    ASSERT_EQ(arch.size(), 2u);
    for (const auto& f : arch)
        EXPECT_EQ(f.consequence_of, f.title.find("/usr/lib/nvidia-cuda-toolkit") != std::string::npos ? "distro-cuda-toolkit-old" : "")
            << f.title;
}

TEST(CudnnlinksDistroRules, DistroNvccOlderThanTorchsCudaMajorFires) {
    auto s = distro_machine("8.6");
    s.frameworks = {framework("torch", "2.4.0", "12.1")};
    const auto found = fired("distro-cuda-toolkit-old", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].why, HasSubstr("torch 2.4.0 was built with CUDA 12.1: its extensions do not build with nvcc 11.5"));
    EXPECT_THAT(found[0].fix, HasSubstr("cuda-toolkit-12-1"));
    const auto ext = fired("extension-build-cuda-mismatch", s);
    ASSERT_EQ(ext.size(), 1u);
    EXPECT_EQ(ext[0].consequence_of, "distro-cuda-toolkit-old");
}

TEST(CudnnlinksDistroRules, DistroNvccThatServesThisMachineIsSilent) {
    // Ampere (8.6) from CUDA 11.1, no framework, no other toolkit: old, but nothing here needs more.
    auto s = distro_machine("8.6");
    EXPECT_TRUE(silent("distro-cuda-toolkit-old", s));
    s.frameworks = {framework("torch", "2.4.0", "11.8")};  // same major: extensions build
    EXPECT_TRUE(silent("distro-cuda-toolkit-old", s));
}

TEST(CudnnlinksDistroRules, DistroToolkitThatLosesOnPathIsSilent) {
    auto s = distro_machine("8.9");
    s.toolkits.front().first_on_path = false;
    auto nvidia = toolkit("12.4.131");
    s.toolkits.push_back(nvidia);
    put_first_on_path(s, s.toolkits.back());
    EXPECT_TRUE(silent("distro-cuda-toolkit-old", s));
}

TEST(CudnnlinksDistroRules, AnNvidiaToolkitUnderUsrLocalIsNoDistroToolkit) {
    // NVIDIA's own deb toolkit, too old for the GPU: gpu-arch-unsupported-by-toolkit's business alone.
    auto s = gpu_machine();
    s.toolkits = {toolkit("11.5.119")};
    s.toolkits.front().install_method = snapshot::InstallMethod::deb;
    s.toolkits.front().found_by = {"/usr/local/cuda-*", "dpkg"};
    put_first_on_path(s, s.toolkits.front());
    EXPECT_TRUE(silent("distro-cuda-toolkit-old", s));
    const auto arch = fired("gpu-arch-unsupported-by-toolkit", s);
    ASSERT_EQ(arch.size(), 1u);
    EXPECT_EQ(arch[0].consequence_of, "");
}

}  // namespace cudnnlinks_distro_test
}  // namespace cudoctor::test::rule_cases
