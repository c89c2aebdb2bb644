// The shell start-up rules (src/rules/environment_rules.cpp) on Snapshot literals: the lines the
// start-up probe records, each rule firing on the trap and silent on the right way to write it.
// (Named rules_* so rules_coverage_test.cpp counts its fired/silent cases.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/rule_cases.hpp"

namespace cudoctor::test::rule_cases {
namespace shellrc_rules {

snapshot::StartupLine rc_line(int n, std::string name, std::string value, bool keeps_old, std::string text,
                              std::string file = "/home/dev/.bashrc") {
    snapshot::StartupLine l;
    l.file = std::move(file);
    l.line = n;
    l.name = std::move(name);
    l.value = std::move(value);
    l.keeps_old = keeps_old;
    l.text = std::move(text);
    return l;
}

snapshot::Snapshot with_lines(std::vector<snapshot::StartupLine> lines) {
    auto s = ubuntu_machine();
    s.environment.startup_lines = std::move(lines);
    return s;
}

}  // namespace shellrc_rules

using shellrc_rules::rc_line;
using shellrc_rules::with_lines;
using ::testing::HasSubstr;

// --- shell-rc-overwrites-ld-library-path ---------------------------------------------------------

TEST(RulesShellrc, LdLibraryPathOverwriteFiresWithTheSedThatRewritesIt) {
    const auto s =
        with_lines({rc_line(12, "LD_LIBRARY_PATH", "/usr/local/cuda/lib64", false, "export LD_LIBRARY_PATH=/usr/local/cuda/lib64")});
    const auto found = fired("shell-rc-overwrites-ld-library-path", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_EQ(found[0].evidence.at(0).source, "/home/dev/.bashrc:12");
    EXPECT_EQ(found[0].evidence.at(0).detail, "export LD_LIBRARY_PATH=/usr/local/cuda/lib64");
    EXPECT_THAT(found[0].fix,
                HasSubstr(
                    "\nsed -i '12c export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}' /home/dev/.bashrc"));
}

TEST(RulesShellrc, LdLibraryPathOverwriteInASystemFileNeedsRoot) {
    const auto s = with_lines({rc_line(3, "LD_LIBRARY_PATH", "/opt/lib", false, "LD_LIBRARY_PATH=/opt/lib", "/etc/profile.d/opt.sh")});
    const auto found = fired("shell-rc-overwrites-ld-library-path", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].fix, HasSubstr("sudo sed -i '3c export LD_LIBRARY_PATH=/opt/lib${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}' "
                                        "/etc/profile.d/opt.sh"));
}

TEST(RulesShellrc, LdLibraryPathKeptOrFirstSetIsSilent) {
    EXPECT_TRUE(silent("shell-rc-overwrites-ld-library-path",
                       with_lines({rc_line(5, "LD_LIBRARY_PATH", "/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}", true,
                                           "export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}")})));
    // pam_env reads /etc/environment first and expands nothing: nothing to wipe, no form to offer.
    EXPECT_TRUE(
        silent("shell-rc-overwrites-ld-library-path", with_lines({rc_line(2, "LD_LIBRARY_PATH", "/usr/local/cuda/lib64", false,
                                                                          "LD_LIBRARY_PATH=/usr/local/cuda/lib64", "/etc/environment")})));
    // Emptied on purpose.
    EXPECT_TRUE(silent("shell-rc-overwrites-ld-library-path", with_lines({rc_line(2, "LD_LIBRARY_PATH", "", false, "LD_LIBRARY_PATH=")})));
    // A removed toolkit: shell-rc-names-missing-toolkit says to drop the line instead.
    auto gone = rc_line(2, "LD_LIBRARY_PATH", "/usr/local/cuda-11.2/lib64", false, "export LD_LIBRARY_PATH=/usr/local/cuda-11.2/lib64");
    gone.missing_toolkits = {"/usr/local/cuda-11.2"};
    EXPECT_TRUE(silent("shell-rc-overwrites-ld-library-path", with_lines({gone})));
}

// --- shell-rc-appends-cuda-path ------------------------------------------------------------------

TEST(RulesShellrc, CudaAppendedAfterAnotherNvccFiresWithThePrependingLine) {
    auto l = rc_line(6, "PATH", "$PATH:/usr/local/cuda-12.4/bin", true, "export PATH=$PATH:/usr/local/cuda-12.4/bin");
    l.nvcc_before = "/usr/bin/nvcc";
    l.appended_dir = "/usr/local/cuda-12.4/bin";
    const auto found = fired("shell-rc-appends-cuda-path", with_lines({l}));
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("/usr/bin/nvcc"));
    EXPECT_TRUE(evidence_mentions(found[0], "/home/dev/.bashrc:6"));
    EXPECT_THAT(found[0].fix, HasSubstr("\nsed -i '6c export PATH=/usr/local/cuda-12.4/bin${PATH:+:${PATH}}' /home/dev/.bashrc"));
    // Other folders of the line keep their place after the old PATH.
    l.value = "$PATH:/usr/local/cuda-12.4/bin:/opt/tools/bin";
    const auto more = fired("shell-rc-appends-cuda-path", with_lines({l}));
    ASSERT_EQ(more.size(), 1u);
    EXPECT_THAT(more[0].fix, HasSubstr("'6c export PATH=/usr/local/cuda-12.4/bin:${PATH}:/opt/tools/bin'"));
}

TEST(RulesShellrc, CudaAppendedWithNoOtherNvccIsSilent) {
    // Appending is harmless while nothing earlier answers to `nvcc`: the probe found none.
    EXPECT_TRUE(silent("shell-rc-appends-cuda-path", with_lines({rc_line(6, "PATH", "$PATH:/usr/local/cuda-12.4/bin", true,
                                                                         "export PATH=$PATH:/usr/local/cuda-12.4/bin")})));
}

// --- cuda-launch-blocking-left-on ----------------------------------------------------------------

TEST(RulesShellrc, LaunchBlockingInAFileAndTheEnvironmentFires) {
    auto s = with_lines({rc_line(9, "CUDA_LAUNCH_BLOCKING", "1", false, "export CUDA_LAUNCH_BLOCKING=1")});
    s.environment.cuda_launch_blocking = "1";
    const auto found = fired("cuda-launch-blocking-left-on", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].fix, "sed -i '9s/^/# /' /home/dev/.bashrc\nunset CUDA_LAUNCH_BLOCKING");
    EXPECT_TRUE(evidence_mentions(found[0], "/home/dev/.bashrc:9"));
    EXPECT_TRUE(evidence_mentions(found[0], "env CUDA_LAUNCH_BLOCKING"));
    // Only in the environment (set by hand in this shell).
    auto env_only = ubuntu_machine();
    env_only.environment.cuda_launch_blocking = "1";
    const auto only = fired("cuda-launch-blocking-left-on", env_only);
    ASSERT_EQ(only.size(), 1u);
    EXPECT_EQ(only[0].fix, "unset CUDA_LAUNCH_BLOCKING");
}

TEST(RulesShellrc, LaunchBlockingOffIsSilent) {
    auto s = with_lines({rc_line(9, "CUDA_LAUNCH_BLOCKING", "0", false, "export CUDA_LAUNCH_BLOCKING=0")});
    s.environment.cuda_launch_blocking = "0";
    EXPECT_TRUE(silent("cuda-launch-blocking-left-on", s));
    EXPECT_TRUE(silent("cuda-launch-blocking-left-on", ubuntu_machine()));
}

// --- shell-rc-names-missing-toolkit --------------------------------------------------------------

TEST(RulesShellrc, MissingToolkitFiresAndCommentsTheLineOut) {
    auto l = rc_line(11, "PATH", "/usr/local/cuda-11.2/bin:$PATH", true, "export PATH=/usr/local/cuda-11.2/bin:$PATH");
    l.missing_toolkits = {"/usr/local/cuda-11.2"};
    const auto found = fired("shell-rc-names-missing-toolkit", with_lines({l}));
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("/usr/local/cuda-11.2"));
    EXPECT_THAT(found[0].fix, HasSubstr("\nsed -i '11s/^/# /' /home/dev/.bashrc"));
    EXPECT_TRUE(evidence_mentions(found[0], "/home/dev/.bashrc:11"));
}

TEST(RulesShellrc, InstalledToolkitIsSilent) {
    EXPECT_TRUE(silent("shell-rc-names-missing-toolkit", with_lines({rc_line(11, "PATH", "/usr/local/cuda-11.8/bin:$PATH", true,
                                                                             "export PATH=/usr/local/cuda-11.8/bin:$PATH")})));
}

}  // namespace cudoctor::test::rule_cases
