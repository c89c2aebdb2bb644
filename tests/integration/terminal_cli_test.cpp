// The global terminal options through the real binary: --quiet leaves the verdict line only (with
// the same exit status), --color=always|never decide colour even when stdout is not a terminal.
#include <gtest/gtest.h>

#include <string>

#include "integration/run_cudoctor.hpp"

namespace {

using cudoctor::test::run_cudoctor;

std::string root_of(const std::string& scenario) { return std::string(CUDOCTOR_ROOTS_DIR) + "/" + scenario; }

TEST(TerminalCli, QuietPrintsTheVerdictLineOnly) {
    const auto healthy = run_cudoctor({"--quiet", "check", "--root", root_of("ubuntu2204-rtx4060ti")});
    EXPECT_EQ(healthy.exit_code, 0) << healthy.describe() << healthy.err;
    EXPECT_EQ(healthy.out.rfind("✓ no problems found", 0), 0u) << healthy.out;
    EXPECT_EQ(healthy.out.find('\n'), healthy.out.size() - 1) << "more than one line:\n" << healthy.out;

    const auto broken = run_cudoctor({"check", "-q", "--root", root_of("driver-mismatch")});
    EXPECT_EQ(broken.exit_code, 1) << broken.describe() << broken.err;
    EXPECT_EQ(broken.out.rfind("✗ 1 error", 0), 0u) << broken.out;
    EXPECT_NE(broken.out.find("driver-library-mismatch"), std::string::npos) << broken.out;
    EXPECT_EQ(broken.out.find('\n'), broken.out.size() - 1) << "more than one line:\n" << broken.out;

    // The full report of the same machine says more than the verdict: --quiet really cut it.
    const auto full = run_cudoctor({"check", "--root", root_of("driver-mismatch")});
    EXPECT_GT(full.out.size(), broken.out.size() * 3);
}

TEST(TerminalCli, ColorAlwaysAndNeverOverrideTheTerminalTest) {
    // stdout is a pipe here: auto means no colour.
    const auto automatic = run_cudoctor({"check", "--root", root_of("driver-mismatch")});
    EXPECT_EQ(automatic.out.find("\033["), std::string::npos);
    const auto always = run_cudoctor({"--color=always", "check", "--root", root_of("driver-mismatch")});
    EXPECT_NE(always.out.find("\033["), std::string::npos) << always.out.substr(0, 400);
    const auto never = run_cudoctor({"check", "--color=never", "--root", root_of("driver-mismatch")});
    EXPECT_EQ(never.out.find("\033["), std::string::npos);
    EXPECT_EQ(always.exit_code, never.exit_code);
}

}  // namespace
