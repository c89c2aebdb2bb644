// The toolkit rules (src/rules/toolkit_rules.cpp) on Snapshot literals: each fires on the
// smallest machine that has its problem and stays silent on the nearest healthy one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/rule_cases.hpp"

namespace cudoctor::test::rule_cases {
namespace {

using ::testing::HasSubstr;

/// gpu_machine() whose /usr/local/cuda is `tk` (the link and the toolkit's flag agree).
snapshot::Snapshot with_default_toolkit(snapshot::Toolkit tk) {
    auto s = gpu_machine();
    tk.is_default = true;
    tk.found_by.emplace_back("/usr/local/cuda");
    s.environment.cuda_symlink = tk.path;
    s.toolkits.push_back(std::move(tk));
    return s;
}

}  // namespace

// --- gpu-arch-unsupported-by-toolkit ----------------------------------------------------------
// compute 8.9 (Ada) needs CUDA ≥ 11.8; compute 6.1 (Pascal) was last supported by CUDA 12.9.

TEST(RulesToolkit, ToolkitOlderThanTheGpuFires) {
    auto s = gpu_machine();
    s.toolkits = {toolkit("11.7.99")};
    const auto found = fired("gpu-arch-unsupported-by-toolkit", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("CUDA 11.7.99 (/usr/local/cuda-11.7) cannot build for the GeForce RTX 4090 (compute 8.9)"));
    EXPECT_THAT(found[0].title, HasSubstr("needs CUDA ≥ 11.8"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesToolkit, FirstToolkitThatKnowsTheGpuIsSilent) {
    auto s = gpu_machine();
    s.toolkits = {toolkit("11.8.89")};
    EXPECT_TRUE(silent("gpu-arch-unsupported-by-toolkit", s));
}

TEST(RulesToolkit, ToolkitThatDroppedTheGpuFires) {
    auto s = gpu_machine("580.65.06");
    s.gpus = {gpu("GeForce GTX 1080", "6.1", "Pascal")};
    s.toolkits = {toolkit("13.0.48")};
    const auto found = fired("gpu-arch-unsupported-by-toolkit", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("no longer supports the GeForce GTX 1080 (compute 6.1)"));
    EXPECT_THAT(found[0].title, HasSubstr("last toolkit for it is CUDA 12.9"));
    EXPECT_TRUE(evidence_mentions(found[0], "kb:cuda_arch_support.tsv"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesToolkit, LastToolkitForTheGpuIsSilent) {
    auto s = gpu_machine("580.65.06");
    s.gpus = {gpu("GeForce GTX 1080", "6.1", "Pascal")};
    s.toolkits = {toolkit("12.9.86")};
    EXPECT_TRUE(silent("gpu-arch-unsupported-by-toolkit", s));
}

TEST(RulesToolkit, CondaRuntimeIsNotACompiler) {
    // A conda env's CUDA runtime builds nothing: it is not judged against the GPU.
    auto s = gpu_machine();
    auto conda = toolkit("11.7.99", "/home/alice/miniconda3/envs/old");
    conda.install_method = snapshot::InstallMethod::conda;
    s.toolkits = {conda};
    EXPECT_TRUE(silent("gpu-arch-unsupported-by-toolkit", s));
}

// --- gcc-too-new-for-toolkit ------------------------------------------------------------------

namespace {
snapshot::Snapshot gcc_machine(int gcc, int toolkit_max_gcc) {
    auto s = gpu_machine();
    s.platform.gcc_default = gcc;
    s.platform.gcc_installed = {gcc};
    auto tk = toolkit("12.4.131");
    tk.max_gcc = toolkit_max_gcc;
    tk.max_gcc_source = "include/crt/host_config.h";
    s.toolkits = {tk};
    return s;
}
}  // namespace

TEST(RulesToolkit, GccNewerThanToolkitAcceptsFires) {
    const auto found = fired("gcc-too-new-for-toolkit", gcc_machine(14, 13));
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("gcc 14 is newer than CUDA 12.4.131"));
    EXPECT_THAT(found[0].title, HasSubstr("gcc ≤ 13"));
    EXPECT_TRUE(evidence_mentions(found[0], "/usr/local/cuda-12.4/include/crt/host_config.h"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesToolkit, GccExactlyAtTheLimitIsSilent) { EXPECT_TRUE(silent("gcc-too-new-for-toolkit", gcc_machine(13, 13))); }

TEST(RulesToolkit, ToolkitWithoutNvccHasNoGccLimit) {
    auto s = gcc_machine(14, 13);
    s.toolkits[0].has_nvcc = false;  // runtime libraries only (cuda-libraries-12-4)
    EXPECT_TRUE(silent("gcc-too-new-for-toolkit", s));
}

// --- toolkit-not-on-path ----------------------------------------------------------------------

TEST(RulesToolkit, DefaultToolkitOffPathFires) {
    const auto s = with_default_toolkit(toolkit("12.4.131"));
    const auto found = fired("toolkit-not-on-path", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_THAT(found[0].title, HasSubstr("CUDA 12.4.131 (/usr/local/cuda-12.4) is installed but no nvcc is on PATH"));
    EXPECT_TRUE(evidence_mentions(found[0], "/usr/local/cuda-12.4/bin/nvcc"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesToolkit, WithoutDefaultTheNewestToolkitIsNamed) {
    auto s = gpu_machine();
    s.toolkits = {toolkit("12.1.105"), toolkit("12.4.131"), toolkit("11.8.89")};
    const auto found = fired("toolkit-not-on-path", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("CUDA 12.4.131"));
}

TEST(RulesToolkit, ToolkitOnPathIsSilent) {
    auto s = with_default_toolkit(toolkit("12.4.131"));
    put_first_on_path(s, s.toolkits[0]);
    EXPECT_TRUE(silent("toolkit-not-on-path", s));
}

// Regression (it was silent): /usr/local/cuda points to a runtime-only install (cuda-libraries, no
// nvcc) while a full toolkit with nvcc sits next to it and PATH has no nvcc. The rule prefers the
// default toolkit even without nvcc, sees no nvcc there and stays silent, although "nvcc: command
// not found" is exactly what the user meets and /usr/local/cuda-12.6/bin would cure it.
TEST(RulesToolkit, RuntimeOnlyDefaultHidesToolkitWithNvcc) {
    auto runtime = toolkit("12.4.131");
    runtime.has_nvcc = false;
    runtime.nvcc_path = "";
    auto s = with_default_toolkit(runtime);
    s.toolkits.push_back(toolkit("12.6.77"));
    const auto found = fired("toolkit-not-on-path", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("CUDA 12.6.77"));
}

// --- nvcc-shadowed ----------------------------------------------------------------------------

TEST(RulesToolkit, OtherNvccThanUsrLocalCudaFires) {
    auto s = with_default_toolkit(toolkit("12.4.131"));
    s.toolkits.push_back(toolkit("11.8.89"));
    put_first_on_path(s, s.toolkits[1]);
    const auto found = fired("nvcc-shadowed", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_THAT(found[0].title, HasSubstr("nvcc on PATH is CUDA 11.8.89 (/usr/local/cuda-11.8)"));
    EXPECT_THAT(found[0].title, HasSubstr("/usr/local/cuda names CUDA 12.4.131"));
    EXPECT_TRUE(evidence_mentions(found[0], "/usr/local/cuda-11.8/bin/nvcc wins"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesToolkit, CudaHomeNamesTheIntendedToolkit) {
    auto s = gpu_machine();
    s.toolkits = {toolkit("12.4.131"), toolkit("11.8.89")};
    s.toolkits[0].found_by.emplace_back("CUDA_HOME");
    s.environment.cuda_home = "/usr/local/cuda-12.4";
    put_first_on_path(s, s.toolkits[1]);
    const auto found = fired("nvcc-shadowed", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("but CUDA_HOME names CUDA 12.4.131"));
}

TEST(RulesToolkit, DefaultToolkitsNvccWinningIsSilent) {
    auto s = with_default_toolkit(toolkit("12.4.131"));
    s.toolkits.push_back(toolkit("11.8.89"));
    put_first_on_path(s, s.toolkits[0]);
    s.environment.nvcc_on_path.push_back(s.toolkits[1].nvcc_path);  // reached too, but second
    EXPECT_TRUE(silent("nvcc-shadowed", s));
}

// --- cuda-home-invalid ------------------------------------------------------------------------

TEST(RulesToolkit, CudaHomeMissingFolderIsAnError) {
    auto s = with_default_toolkit(toolkit("12.4.131"));
    put_first_on_path(s, s.toolkits[0]);
    s.environment.cuda_home = "/opt/cuda-12.9";  // no toolkit was found there
    const auto found = fired("cuda-home-invalid", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("CUDA_HOME=/opt/cuda-12.9 is not a CUDA toolkit folder"));
    EXPECT_TRUE(evidence_mentions(found[0], "env CUDA_HOME"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesToolkit, CudaPathMissingFolderIsAnError) {
    auto s = with_default_toolkit(toolkit("12.4.131"));
    put_first_on_path(s, s.toolkits[0]);
    s.environment.cuda_path = "/usr/local/cuda-12.2";
    const auto found = fired("cuda-home-invalid", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("CUDA_PATH=/usr/local/cuda-12.2"));
}

TEST(RulesToolkit, CudaHomeOfAnotherToolkitThanNvccIsAWarning) {
    auto s = gpu_machine();
    s.toolkits = {toolkit("12.4.131"), toolkit("11.8.89")};
    s.toolkits[1].found_by.emplace_back("CUDA_HOME");
    s.environment.cuda_home = "/usr/local/cuda-11.8";
    put_first_on_path(s, s.toolkits[0]);
    const auto found = fired("cuda-home-invalid", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_THAT(found[0].title, HasSubstr("CUDA_HOME names CUDA 11.8.89 (/usr/local/cuda-11.8) but nvcc on PATH is CUDA 12.4.131"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesToolkit, CudaHomeOfTheNvccOnPathIsSilent) {
    auto s = gpu_machine();
    s.toolkits = {toolkit("12.4.131"), toolkit("11.8.89")};
    s.toolkits[0].found_by.emplace_back("CUDA_HOME");
    s.environment.cuda_home = "/usr/local/cuda-12.4";
    put_first_on_path(s, s.toolkits[0]);
    EXPECT_TRUE(silent("cuda-home-invalid", s));
}

TEST(RulesToolkit, EmptyCudaHomeIsUnset) {
    auto s = with_default_toolkit(toolkit("12.4.131"));
    s.environment.cuda_home = "";
    EXPECT_TRUE(silent("cuda-home-invalid", s));
}

// --- cuda-symlink-dangling --------------------------------------------------------------------

TEST(RulesToolkit, DanglingUsrLocalCudaFires) {
    auto s = gpu_machine();
    s.toolkits = {toolkit("12.4.131")};
    s.environment.cuda_symlink = "/usr/local/cuda-12.2";
    s.environment.cuda_symlink_dangling = true;
    const auto found = fired("cuda-symlink-dangling", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("/usr/local/cuda points to /usr/local/cuda-12.2, which does not exist"));
    EXPECT_TRUE(evidence_mentions(found[0], "-> /usr/local/cuda-12.2"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesToolkit, DanglingLinkWithNoToolkitLeftStillFires) {
    auto s = gpu_machine();
    s.environment.cuda_symlink = "/usr/local/cuda-12.2";
    s.environment.cuda_symlink_dangling = true;
    const auto found = fired("cuda-symlink-dangling", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesToolkit, UsrLocalCudaToAnInstalledToolkitIsSilent) {
    EXPECT_TRUE(silent("cuda-symlink-dangling", with_default_toolkit(toolkit("12.4.131"))));
}

}  // namespace cudoctor::test::rule_cases
