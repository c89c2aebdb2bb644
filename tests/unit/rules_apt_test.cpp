// The apt rules on Snapshot literals (named rules_*: the rule coverage test reads the fired/silent
// cases of tests/unit/rules_*_test.cpp only): NVIDIA's repository for another release, a stale
// local repository, and holds or pins that keep a too-old driver.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/rule_cases.hpp"

namespace cudoctor::test::rule_cases {
namespace apt_rules_test {

using ::testing::HasSubstr;
using ::testing::Not;

snapshot::AptSource local_source(const std::string& name, const std::string& keyring = "/usr/share/keyrings/cuda-F73B257B-keyring.gpg") {
    snapshot::AptSource a;
    a.file = "/etc/apt/sources.list.d/" + name + ".list";
    a.line = 1;
    a.uri = "file:///var/" + name;
    a.suite = "/";
    a.signed_by = keyring;
    return a;
}

// --- apt-cuda-repo-wrong-distro ---------------------------------------------------------------------

TEST(AptRules, Ubuntu2004RepositoryOn2204FiresAndInstallsTheRightKeyring) {
    auto s = gpu_machine();
    s.platform.apt_sources = {nvidia_source("ubuntu2004")};
    const auto found = fired("apt-cuda-repo-wrong-distro", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_EQ(found[0].title, "NVIDIA's CUDA repository for ubuntu2004 is configured on Ubuntu 22.04 (it should be ubuntu2204)");
    EXPECT_EQ(found[0].fix,
              "sudo rm /etc/apt/sources.list.d/cuda-ubuntu2004-x86_64.list\n"
              "# NVIDIA's CUDA repository (ubuntu2204): its keyring package first, or apt rejects the repository\n"
              "wget -N https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/cuda-keyring_1.1-1_all.deb\n"
              "sudo dpkg -i cuda-keyring_1.1-1_all.deb\n"
              "sudo apt-get update");
    EXPECT_TRUE(evidence_mentions(found[0], "/etc/apt/sources.list.d/cuda-ubuntu2004-x86_64.list:1"));
}

TEST(AptRules, WrongRepositoryBesideTheRightOneIsRemovedWithoutANewKeyring) {
    auto s = gpu_machine();
    s.platform.apt_sources = {nvidia_source("ubuntu2204"), nvidia_source("ubuntu2004")};
    const auto found = fired("apt-cuda-repo-wrong-distro", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].fix, "sudo rm /etc/apt/sources.list.d/cuda-ubuntu2004-x86_64.list\nsudo apt-get update");
}

TEST(AptRules, WrongRepositoryLineInsideSourcesListIsCommentedOutNotTheFileRemoved) {
    auto s = gpu_machine();
    snapshot::AptSource ubuntu;
    ubuntu.file = "/etc/apt/sources.list";
    ubuntu.line = 1;
    ubuntu.uri = "http://archive.ubuntu.com/ubuntu/";
    ubuntu.suite = "jammy";
    auto bad = nvidia_source("ubuntu2004", "/etc/apt/sources.list");
    bad.line = 3;
    s.platform.apt_sources = {ubuntu, bad, nvidia_source("ubuntu2204")};
    const auto found = fired("apt-cuda-repo-wrong-distro", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].fix, "sudo sed -i '3s/^/# /' /etc/apt/sources.list\nsudo apt-get update");
}

TEST(AptRules, NativeUbuntuRepositoryUnderWslFiresAndNamesWslUbuntu) {
    auto s = ubuntu_machine();
    s.platform.wsl = true;
    s.platform.wsl_gpu = true;
    s.platform.kernel = "5.15.153.1-microsoft-standard-WSL2";
    s.driver.windows_version = "552.22";
    s.platform.apt_sources = {nvidia_source("ubuntu2204")};
    const auto found = fired("apt-cuda-repo-wrong-distro", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("(it should be wsl-ubuntu)"));
    EXPECT_THAT(found[0].why, HasSubstr("break CUDA in WSL2"));
    EXPECT_THAT(found[0].fix, HasSubstr("repos/wsl-ubuntu/x86_64/cuda-keyring_1.1-1_all.deb"));
}

TEST(AptRules, RightRepositoryDisabledOrOtherSourcesStaySilent) {
    auto s = gpu_machine();
    s.platform.apt_sources = {nvidia_source("ubuntu2204")};
    EXPECT_TRUE(silent("apt-cuda-repo-wrong-distro", s));
    auto disabled = nvidia_source("ubuntu2004");
    disabled.enabled = false;
    s.platform.apt_sources.push_back(disabled);
    EXPECT_TRUE(silent("apt-cuda-repo-wrong-distro", s));
    // WSL2 with its own repository.
    auto w = ubuntu_machine();
    w.platform.wsl = true;
    w.platform.apt_sources = {nvidia_source("wsl-ubuntu")};
    EXPECT_TRUE(silent("apt-cuda-repo-wrong-distro", w));
    // A release the KB has no repository for: nothing to compare with.
    auto unknown = gpu_machine();
    unknown.platform.os_version = "23.10";
    unknown.platform.apt_sources = {nvidia_source("ubuntu2204")};
    EXPECT_TRUE(silent("apt-cuda-repo-wrong-distro", unknown));
}

// --- apt-local-repo-stale -------------------------------------------------------------------------

TEST(AptRules, LocalRepositoryWhoseFolderIsGoneFires) {
    auto s = gpu_machine();
    s.toolkits = {toolkit("12.4.131")};
    auto local = local_source("cuda-repo-ubuntu2204-12-4-local");
    local.local_dir_missing = true;
    s.platform.apt_sources = {local};
    const auto found = fired("apt-local-repo-stale", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].title, "A local CUDA 12.4 repository from an old local .deb install is still an apt source: its folder is gone");
    EXPECT_EQ(found[0].fix,
              "sudo rm /etc/apt/sources.list.d/cuda-repo-ubuntu2204-12-4-local.list\n"
              "sudo apt-get update\n"
              "# the package that made it, if still installed (dpkg -l 'cuda-repo-*-local'): sudo apt-get purge "
              "cuda-repo-ubuntu2204-12-4-local");
}

TEST(AptRules, LocalRepositoryWithoutItsKeyringFires) {
    auto s = gpu_machine();
    s.toolkits = {toolkit("12.4.131")};
    auto local = local_source("cuda-repo-ubuntu2204-12-4-local");
    local.signed_by_missing = true;
    s.platform.apt_sources = {local};
    const auto found = fired("apt-local-repo-stale", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("its keyring is missing"));
    EXPECT_TRUE(evidence_mentions(found[0], "NO_PUBKEY"));
}

TEST(AptRules, LocalRepositoryOfAReleaseNoLongerInstalledFires) {
    auto s = gpu_machine();
    s.toolkits = {toolkit("12.4.131")};
    s.platform.apt_sources = {local_source("cuda-repo-ubuntu2204-12-2-local")};
    const auto found = fired("apt-local-repo-stale", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("no CUDA 12.2 is installed"));
    // WSL2's local .deb names its repository with a hyphen inside: cuda-repo-wsl-ubuntu-12-2-local.
    s.platform.apt_sources = {local_source("cuda-repo-wsl-ubuntu-12-2-local")};
    const auto wsl = fired("apt-local-repo-stale", s);
    ASSERT_EQ(wsl.size(), 1u);
    EXPECT_THAT(wsl[0].fix, HasSubstr("sudo apt-get purge cuda-repo-wsl-ubuntu-12-2-local"));
}

TEST(AptRules, LocalRepositoryInUseOrBeforeItsInstallStaysSilent) {
    auto s = gpu_machine();
    s.toolkits = {toolkit("12.4.131")};
    s.platform.apt_sources = {local_source("cuda-repo-ubuntu2204-12-4-local")};
    EXPECT_TRUE(silent("apt-local-repo-stale", s));
    // Added, toolkit not installed yet: not stale.
    s.toolkits.clear();
    EXPECT_TRUE(silent("apt-local-repo-stale", s));
    // A disabled stale one.
    s.toolkits = {toolkit("12.4.131")};
    auto old = local_source("cuda-repo-ubuntu2204-12-2-local");
    old.enabled = false;
    s.platform.apt_sources = {old};
    EXPECT_TRUE(silent("apt-local-repo-stale", s));
}

// --- apt-driver-pin-conflict ----------------------------------------------------------------------

/// Driver 535 with CUDA 12.4 installed (needs ≥ 550.54.14) and the driver packages held.
snapshot::Snapshot held_535() {
    auto s = gpu_machine("535.183.01");
    s.toolkits = {toolkit("12.4.131")};
    s.platform.held_packages = {{"nvidia-driver-535", "535.183.01-0ubuntu0.22.04.1"},
                                {"libnvidia-compute-535", "535.183.01-0ubuntu0.22.04.1"},
                                {"nvidia-container-toolkit", "1.14.6-1"}};
    return s;
}

TEST(AptRules, HeldDriverTooOldForTheToolkitFiresWithUnhold) {
    const auto s = held_535();
    ASSERT_FALSE(fired("driver-too-old-for-toolkit", s).empty());
    const auto found = fired("apt-driver-pin-conflict", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_EQ(found[0].title, "The driver is kept on branch 535 by held packages, but this machine needs ≥ 550.54.15");
    EXPECT_EQ(found[0].fix,
              "sudo apt-mark unhold nvidia-driver-535 libnvidia-compute-535\n"
              "# then upgrade the driver as driver-too-old-for-toolkit / -framework says");
    EXPECT_THAT(found[0].fix, Not(HasSubstr("nvidia-container-toolkit")));
}

TEST(AptRules, VersionPinOfTheDriverMetaPackageFiresAndNvidiasPin600DoesNot) {
    auto s = held_535();
    s.platform.held_packages.clear();
    s.platform.apt_pins = {{"/etc/apt/preferences.d/cuda-repository-pin-600", 1, "nsight-compute", "origin *ubuntu.com*", -1},
                           {"/etc/apt/preferences.d/cuda-repository-pin-600", 5, "nsight-systems", "origin *ubuntu.com*", -1},
                           {"/etc/apt/preferences.d/cuda-repository-pin-600", 9, "*", "release l=NVIDIA CUDA", 600}};
    EXPECT_TRUE(silent("apt-driver-pin-conflict", s));
    s.platform.apt_pins.push_back({"/etc/apt/preferences.d/nvidia-driver", 1, "cuda-drivers nvidia-*", "version 535.*", 1001});
    const auto found = fired("apt-driver-pin-conflict", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("by an apt pin"));
    EXPECT_EQ(found[0].fix,
              "sudo rm /etc/apt/preferences.d/nvidia-driver\n"
              "# then upgrade the driver as driver-too-old-for-toolkit / -framework says");
}

TEST(AptRules, HoldOnADriverNewEnoughOrWithNothingNeedingMoreStaysSilent) {
    // The driver is new enough: a hold is the owner's choice.
    auto s = gpu_machine("550.54.15");
    s.toolkits = {toolkit("12.4.131")};
    s.platform.held_packages = {{"nvidia-driver-550", "550.54.15-0ubuntu1"}};
    EXPECT_TRUE(silent("apt-driver-pin-conflict", s));
    // Too old, but nothing held or pinned.
    auto t = held_535();
    t.platform.held_packages = {{"nvidia-container-toolkit", "1.14.6-1"}};
    EXPECT_TRUE(silent("apt-driver-pin-conflict", t));
    // Held on 535 with only CUDA 12.2 (535 is enough).
    auto u = held_535();
    u.toolkits = {toolkit("12.2.140")};
    EXPECT_TRUE(silent("apt-driver-pin-conflict", u));
    // A pin to an old version at a priority below the repositories' 500 holds nothing.
    auto v = held_535();
    v.platform.held_packages.clear();
    v.platform.apt_pins = {{"/etc/apt/preferences.d/nvidia", 1, "cuda-drivers", "version 535.*", 400}};
    EXPECT_TRUE(silent("apt-driver-pin-conflict", v));
}

}  // namespace apt_rules_test
}  // namespace cudoctor::test::rule_cases
