// Partial coverage: a GPU that runs a few of a binary's modules, far fewer than the GPU the
// binary serves best, gets its own verdict ("partial"), not "runs natively".
#include <gtest/gtest.h>

#include "gpucode/compatibility.hpp"

using namespace cudoctor::gpucode;

namespace {

Image cov_img(std::string_view name) { return *parse_target(name); }

ComputeCapability cov_cc(std::string_view s) { return *parse_compute_capability(s); }

/// One module with sm_75 + sm_80, then `sm80_only` modules with sm_80 alone.
std::vector<std::vector<Image>> cov_library(int sm80_only) {
    std::vector<std::vector<Image>> modules = {{cov_img("sm_75"), cov_img("sm_80")}};
    for (int i = 0; i < sm80_only; ++i) modules.push_back({cov_img("sm_80")});
    return modules;
}

}  // namespace

TEST(ArchCoverage, TheRuleAtItsEdge) {
    EXPECT_FALSE(is_partial_coverage(0, 100));  // nothing at all is "cannot run", not partial
    EXPECT_FALSE(is_partial_coverage(5, 100));  // one in twenty: still served
    EXPECT_TRUE(is_partial_coverage(4, 100));
    EXPECT_TRUE(is_partial_coverage(2, 1159));     // cuDNN 9.19's engines on 7.0
    EXPECT_FALSE(is_partial_coverage(167, 1612));  // cuBLASLt 13.0 on 7.5, a GPU it supports
    EXPECT_FALSE(is_partial_coverage(1, 1));
}

TEST(ArchCoverage, FewModulesForThisGpuIsPartial) {
    // 1 of 21 modules for 7.5, all 21 for 8.0: 1 * 20 < 21.
    const auto v = verdict_for(cov_library(20), cov_cc("7.5"));
    EXPECT_EQ(v.mode, RunMode::native_exact);
    EXPECT_EQ(v.via, "sm_75");
    EXPECT_EQ(v.modules_usable, 1u);
    EXPECT_EQ(v.modules_total, 21u);
    EXPECT_TRUE(v.partial);
    EXPECT_EQ(v.best_covered, cov_cc("8.0"));
    EXPECT_EQ(v.best_covered_modules, 21u);
    // The best-covered GPU itself, and a newer one of its family, are fully served.
    EXPECT_FALSE(verdict_for(cov_library(20), cov_cc("8.0")).partial);
    EXPECT_FALSE(verdict_for(cov_library(20), cov_cc("8.6")).partial);
}

TEST(ArchCoverage, OneInTwentyIsNotPartial) {
    const auto v = verdict_for(cov_library(19), cov_cc("7.5"));  // 1 of 20
    EXPECT_FALSE(v.partial);
    EXPECT_EQ(v.best_covered_modules, 20u);
}

TEST(ArchCoverage, ArchSpecificModulesCountForTheirGpuOnly) {
    // 30 Hopper-only modules (sm_90a) beside 10 generic ones (sm_80): an 8.6 GPU runs the 10
    // generic ones of a best of 40 (9.0): fewer, but not partial; one generic module would be.
    std::vector<std::vector<Image>> modules;
    for (int i = 0; i < 10; ++i) modules.push_back({cov_img("sm_80")});
    for (int i = 0; i < 30; ++i) modules.push_back({cov_img("sm_90a")});
    auto v = verdict_for(modules, cov_cc("8.6"));
    EXPECT_EQ(v.modules_usable, 10u);
    EXPECT_EQ(v.best_covered, cov_cc("9.0"));
    EXPECT_EQ(v.best_covered_modules, 30u);  // sm_80 SASS does not run on 9.0
    EXPECT_FALSE(v.partial);
    modules.erase(modules.begin() + 1, modules.begin() + 10);
    EXPECT_TRUE(verdict_for(modules, cov_cc("8.6")).partial);
}

TEST(ArchCoverage, CannotRunIsNotPartial) {
    const auto v = verdict_for(cov_library(20), cov_cc("7.0"));
    EXPECT_EQ(v.mode, RunMode::cannot_run);
    EXPECT_FALSE(v.partial);
}
