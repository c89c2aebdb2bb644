// The apt rules on whole fixture machines: the apt leftovers of ubuntu2204-apt-traps, the held
// 535 driver of ubuntu2204-apt-driver-hold, and the machines whose apt setup is right, where they
// stay silent. Also what the probe records of sources, keyrings, holds and pins.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/json_query.hpp"
#include "support/mutable_root.hpp"

namespace cudoctor::test {
namespace apt_fixtures_test {

using nlohmann::json;

constexpr std::array<const char*, 3> kAptRules = {"apt-cuda-repo-wrong-distro", "apt-local-repo-stale", "apt-driver-pin-conflict"};

std::string all_findings(const json& snap) { return snap["findings"].dump(2); }

TEST(AptFixtures, WrongReleaseRepositoryAndStaleLocalRepositoryFire) {
    const auto snap = MutableRoot("ubuntu2204-apt-traps").check();
    const json* wrong = finding(snap, "apt-cuda-repo-wrong-distro");
    ASSERT_NE(wrong, nullptr) << all_findings(snap);
    EXPECT_EQ((*wrong)["severity"], "warning");
    EXPECT_EQ((*wrong)["layer"], "platform");
    const std::string fix = (*wrong)["fix"];
    EXPECT_TRUE(fix.starts_with("sudo rm /etc/apt/sources.list.d/cuda-ubuntu2004-x86_64.list\n")) << fix;
    EXPECT_NE(fix.find("wget -N https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/cuda-keyring_1.1-1_all.deb"),
              std::string::npos)
        << fix;
    const json* local = finding(snap, "apt-local-repo-stale");
    ASSERT_NE(local, nullptr) << all_findings(snap);
    EXPECT_EQ((*local)["title"], "A local CUDA 12.2 repository from an old local .deb install is still an apt source: its folder is gone");
    EXPECT_TRUE(std::string((*local)["fix"]).starts_with("sudo rm /etc/apt/sources.list.d/cuda-ubuntu2204-12-2-local.list\n"));
    // nvidia-driver-550 is held, but 550 is what CUDA 12.4 needs: a hold is a choice.
    EXPECT_EQ(finding(snap, "apt-driver-pin-conflict"), nullptr) << all_findings(snap);
}

TEST(AptFixtures, ProbeRecordsSourcesKeyringsHoldsAndPins) {
    const auto snap = MutableRoot("ubuntu2204-apt-traps").check();
    const auto& p = snap["platform"];
    std::vector<std::string> uris;
    for (const auto& s : p["apt_sources"]) uris.push_back(s["uri"]);
    ASSERT_EQ(uris.size(), 12u) << p["apt_sources"].dump(2);  // 10 of sources.list, 2 of sources.list.d
    EXPECT_EQ(uris[0], "http://archive.ubuntu.com/ubuntu/");
    const auto& local = p["apt_sources"][11];
    EXPECT_EQ(local["uri"], "file:///var/cuda-repo-ubuntu2204-12-2-local");
    EXPECT_EQ(local["signed_by"], "/usr/share/keyrings/cuda-F73B257B-keyring.gpg");
    EXPECT_EQ(local["local_dir_missing"], true);
    EXPECT_EQ(local["signed_by_missing"], false);
    EXPECT_EQ(p["apt_keyrings"],
              json::array({"/usr/share/keyrings/cuda-F73B257B-keyring.gpg", "/usr/share/keyrings/cuda-archive-keyring.gpg"}));
    EXPECT_EQ(p["held_packages"].size(), 2u);
    EXPECT_EQ(p["held_packages"][0]["name"], "nvidia-driver-550");
    ASSERT_EQ(p["apt_pins"].size(), 3u);
    EXPECT_EQ(p["apt_pins"][2]["pin"], "release l=NVIDIA CUDA");
    EXPECT_EQ(p["apt_pins"][2]["priority"], 600);
}

TEST(AptFixtures, MissingLocalKeyringFiresEvenWithTheFolderThere) {
    MutableRoot r("ubuntu2204-apt-traps");
    r.write("/var/cuda-repo-ubuntu2204-12-2-local/Release", "Origin: NVIDIA\nLabel: NVIDIA CUDA\n");
    r.remove("/usr/share/keyrings/cuda-F73B257B-keyring.gpg");
    const auto snap = r.check();
    const json* local = finding(snap, "apt-local-repo-stale");
    ASSERT_NE(local, nullptr) << all_findings(snap);
    EXPECT_NE(std::string((*local)["title"]).find("its keyring is missing"), std::string::npos) << (*local)["title"];
}

TEST(AptFixtures, HeldOldDriverBlockingTheToolkitsDriverFires) {
    const auto snap = MutableRoot("ubuntu2204-apt-driver-hold").check();
    ASSERT_NE(finding(snap, "driver-too-old-for-toolkit"), nullptr) << all_findings(snap);
    const json* f = finding(snap, "apt-driver-pin-conflict");
    ASSERT_NE(f, nullptr) << all_findings(snap);
    EXPECT_EQ((*f)["layer"], "driver");
    EXPECT_EQ((*f)["title"], "The driver is kept on branch 535 by held packages, but this machine needs ≥ 550.54.15");
    EXPECT_TRUE(std::string((*f)["fix"]).starts_with("sudo apt-mark unhold nvidia-driver-535 libnvidia-compute-535\n")) << (*f)["fix"];
    // Its right repository and NVIDIA's pin-600 are no finding.
    EXPECT_EQ(finding(snap, "apt-cuda-repo-wrong-distro"), nullptr);
    EXPECT_EQ(finding(snap, "apt-local-repo-stale"), nullptr);
}

TEST(AptFixtures, MachinesWithARightAptSetupStaySilent) {
    for (const char* scenario :
         {"ubuntu2204-rtx4060ti", "server-three-toolkits", "toolkits-repo-driver", "wsl2-dxg", "wsl2", "vmware-no-gpu"}) {
        const auto snap = MutableRoot(scenario).check();
        for (const char* id : kAptRules) EXPECT_EQ(finding(snap, id), nullptr) << scenario << ": " << id << "\n" << all_findings(snap);
    }
}

TEST(AptFixtures, NativeRepositoryUnderWslFires) {
    MutableRoot r("wsl2-dxg");
    r.write("/etc/apt/sources.list.d/cuda-ubuntu2204-x86_64.list",
            "deb [signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg] "
            "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/ /\n");
    const auto snap = r.check();
    const json* f = finding(snap, "apt-cuda-repo-wrong-distro");
    ASSERT_NE(f, nullptr) << all_findings(snap);
    EXPECT_EQ((*f)["fix"], "sudo rm /etc/apt/sources.list.d/cuda-ubuntu2204-x86_64.list\nsudo apt-get update");
}

}  // namespace apt_fixtures_test
}  // namespace cudoctor::test
