// verify's reading of cudaErrorInsufficientDriver (35) from the nvcc-built check program: it
// blames the driver only when level 1's driver CUDA version is below the toolkit's CUDA; with a
// driver that runs the toolkit's CUDA the runtime did not reach that driver, and no driver
// install is proposed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/rule_cases.hpp"
#include "verify/levels.hpp"

namespace cudoctor::test::rule_cases {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

/// This machine's kind: Debian 12, CUDA 13.0 from NVIDIA's wheels in /usr/local/cuda-13.0.
snapshot::Snapshot versions_debian_cuda13() {
    auto s = gpu_machine("580.95.05");
    s.platform.os_id = "debian";
    s.platform.os_version = "12";
    auto tk = toolkit("13.0.88", "/usr/local/cuda-13.0");
    tk.install_method = snapshot::InstallMethod::unknown;
    tk.components = {{"cuda_nvcc", "13.0.88"}, {"cuda_cudart", "13.0.96"}};
    s.toolkits = {tk};
    return s;
}

verify::CheckOutcome versions_insufficient_driver() {
    return {verify::CheckOutcome::Kind::error,
            "cudaMalloc failed",
            "cudaMalloc",
            35,
            "cudaErrorInsufficientDriver",
            "CUDA driver version is insufficient for CUDA runtime version"};
}

verify::Step versions_explain(const snapshot::Snapshot& s, int driver_cuda) {
    const verify::Options options;
    verify::detail::Context ctx{
        host::Host::real(), kb::Kb::builtin(), s, options, true, {}, driver_cuda, "/usr/lib/x86_64-linux-gnu/libcuda.so.1", {}};
    verify::Step step{"kernel-run", "the kernel runs and every thread wrote its value"};
    verify::detail::explain_cuda_error(step, ctx, versions_insufficient_driver(), &s.toolkits.front());
    return step;
}

TEST(VersionsVerify, InsufficientDriverWithADriverThatRunsTheToolkitBlamesTheLoaderNotTheDriver) {
    const auto s = versions_debian_cuda13();
    const auto step = versions_explain(s, 13000);  // level 1: the driver runs CUDA ≤ 13.0
    EXPECT_EQ(step.status, verify::Status::fail);
    EXPECT_THAT(step.cause, Not(HasSubstr("newer than the driver")));
    EXPECT_THAT(step.cause, HasSubstr("runs CUDA ≤ 13.0, enough for this toolkit's CUDA 13.0"));
    EXPECT_THAT(step.fix, Not(HasSubstr("apt")));
    EXPECT_THAT(step.fix, Not(HasSubstr("nvidia-driver")));
    EXPECT_THAT(step.fix, HasSubstr("ldconfig -p"));
    EXPECT_THAT(step.fix, HasSubstr("/usr/lib/x86_64-linux-gnu"));
    EXPECT_EQ(step.rule, "");
}

TEST(VersionsVerify, InsufficientDriverWithAnOlderDriverStillBlamesTheDriver) {
    const auto s = versions_debian_cuda13();
    const auto step = versions_explain(s, 12080);  // a 570 driver: CUDA ≤ 12.8 cannot run CUDA 13
    EXPECT_EQ(step.status, verify::Status::fail);
    EXPECT_THAT(step.cause, HasSubstr("newer than the driver (it runs CUDA ≤ 12.8)"));
    EXPECT_FALSE(step.fix.empty());
}

}  // namespace
}  // namespace cudoctor::test::rule_cases
