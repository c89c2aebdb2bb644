// The apt configuration parsers on literal text: one-line sources, deb822 sources, preferences;
// dpkg's hold selection; and the JSON round trip of what the probe records from them.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "formats/apt_sources.hpp"
#include "formats/dpkg_status.hpp"
#include "snapshot/snapshot_json.hpp"

namespace apt_sources_test {

using cudoctor::formats::parse_apt_preferences;
using cudoctor::formats::parse_apt_sources_deb822;
using cudoctor::formats::parse_apt_sources_list;

TEST(AptSources, OneLineWithOptionsCommentsAndTheLocalRepository) {
    const auto e = parse_apt_sources_list(
        "# See http://help.ubuntu.com/community/UpgradeNotes\r\n"
        "deb http://archive.ubuntu.com/ubuntu/ jammy main restricted # trailing\r\n"
        "# deb-src http://archive.ubuntu.com/ubuntu/ jammy main\n"
        "\n"
        "deb [signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg] "
        "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/ /\n"
        "deb [ arch=amd64  signed-by=/usr/share/keyrings/cuda-F73B257B-keyring.gpg ] file:///var/cuda-repo-ubuntu2204-12-4-local /\n"
        "deb-src http://archive.ubuntu.com/ubuntu/ jammy universe\n");
    ASSERT_EQ(e.size(), 4u);
    EXPECT_EQ(e[0].line, 2);
    EXPECT_EQ(e[0].type, "deb");
    EXPECT_EQ(e[0].uri, "http://archive.ubuntu.com/ubuntu/");
    EXPECT_EQ(e[0].suite, "jammy");
    EXPECT_EQ(e[0].components, (std::vector<std::string>{"main", "restricted"}));
    EXPECT_EQ(e[0].signed_by, "");
    EXPECT_EQ(e[1].line, 5);
    EXPECT_EQ(e[1].uri, "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/");
    EXPECT_EQ(e[1].suite, "/");
    EXPECT_TRUE(e[1].components.empty());
    EXPECT_EQ(e[1].signed_by, "/usr/share/keyrings/cuda-archive-keyring.gpg");
    EXPECT_EQ(e[2].uri, "file:///var/cuda-repo-ubuntu2204-12-4-local");
    EXPECT_EQ(e[2].signed_by, "/usr/share/keyrings/cuda-F73B257B-keyring.gpg");
    EXPECT_EQ(e[3].type, "deb-src");
    for (const auto& x : e) EXPECT_TRUE(x.enabled);
}

TEST(AptSources, OneLineSkipsWhatIsNoSource) {
    EXPECT_TRUE(parse_apt_sources_list("").empty());
    EXPECT_TRUE(parse_apt_sources_list("deb\n"
                                       "deb http://x/\n"                  // no suite
                                       "deb [signed-by=/k http://x/ /\n"  // '[' without ']'
                                       "rpm http://x/ /\n"
                                       "\x01\x02\xff garbage\n")
                    .empty());
}

TEST(AptSources, Deb822StanzasExpandAndEnabledNoDisables) {
    const auto e = parse_apt_sources_deb822(
        "# Ubuntu sources have moved to /etc/apt/sources.list.d/ubuntu.sources\n"
        "Types: deb deb-src\n"
        "URIs: http://archive.ubuntu.com/ubuntu/\n"
        "Suites: noble noble-updates\n"
        "Components: main restricted\n"
        "Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg\n"
        "\n"
        "types: deb\n"
        "uris: https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2404/x86_64/\n"
        "suites: /\n"
        "enabled: no\n"
        "\n"
        "Types: deb\n"
        "URIs: https://example.com/repo\n"
        "Suites: stable\n"
        "Signed-By:\n"
        " -----BEGIN PGP PUBLIC KEY BLOCK-----\n"
        " .\n"
        " mQINBF...\n"
        " -----END PGP PUBLIC KEY BLOCK-----\n"
        "\n"
        "Types: deb\n"
        "Suites: no-uris\n");
    ASSERT_EQ(e.size(), 6u);
    EXPECT_EQ(e[0].type, "deb");
    EXPECT_EQ(e[0].suite, "noble");
    EXPECT_EQ(e[1].suite, "noble-updates");
    EXPECT_EQ(e[2].type, "deb-src");
    EXPECT_EQ(e[0].line, 2);
    EXPECT_EQ(e[0].components, (std::vector<std::string>{"main", "restricted"}));
    EXPECT_EQ(e[0].signed_by, "/usr/share/keyrings/ubuntu-archive-keyring.gpg");
    EXPECT_TRUE(e[0].enabled);
    EXPECT_EQ(e[4].uri, "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2404/x86_64/");
    EXPECT_EQ(e[4].line, 8);
    EXPECT_FALSE(e[4].enabled);
    EXPECT_EQ(e[5].signed_by, "");
    EXPECT_TRUE(e[5].signed_by_inline);
}

TEST(AptSources, Deb822CapsTheEntriesOfAHugeStanza) {
    std::string many = "Types: deb\nURIs:";
    for (int i = 0; i < 200; ++i) many += " http://h" + std::to_string(i) + "/";
    many += "\nSuites:";
    for (int i = 0; i < 200; ++i) many += " s" + std::to_string(i);
    many += "\n";
    EXPECT_EQ(parse_apt_sources_deb822(many).size(), cudoctor::formats::kMaxAptEntries);
}

TEST(AptSources, PreferencesOfNvidiasPin600AndADriverPin) {
    const auto p = parse_apt_preferences(
        "Package: nsight-compute\nPin: origin *ubuntu.com*\nPin-Priority: -1\n\n"
        "Package: nsight-systems\nPin: origin *ubuntu.com*\nPin-Priority: -1\n\n"
        "Package: *\nPin: release l=NVIDIA CUDA\nPin-Priority: 600\n\n"
        "Explanation: keep the 535 driver\n"
        "Package: cuda-drivers nvidia-*\nPin: version 535.*\nPin-Priority: 1001\n\n"
        "Package: no-pin\nPin-Priority: 5\n\n"
        "Package: bad-priority\nPin: version 1\nPin-Priority: high\n");
    ASSERT_EQ(p.size(), 5u);
    EXPECT_EQ(p[0].package, "nsight-compute");
    EXPECT_EQ(p[0].pin, "origin *ubuntu.com*");
    EXPECT_EQ(p[0].priority, -1);
    EXPECT_EQ(p[2].pin, "release l=NVIDIA CUDA");
    EXPECT_EQ(p[2].priority, 600);
    EXPECT_EQ(p[2].line, 9);
    EXPECT_EQ(p[3].package, "cuda-drivers nvidia-*");
    EXPECT_EQ(p[3].pin, "version 535.*");
    EXPECT_EQ(p[3].priority, 1001);
    EXPECT_EQ(p[4].priority, std::nullopt);
}

TEST(AptSources, DpkgHoldIsTheSelectionNotTheState) {
    const auto pkgs = cudoctor::formats::parse_dpkg_status(
        "Package: nvidia-driver-535\nStatus: hold ok installed\nVersion: 535.183.01-0ubuntu0.22.04.1\n\n"
        "Package: libc6\nStatus: install ok installed\nVersion: 2.35-0ubuntu3.7\n\n"
        "Package: old\nStatus: hold ok config-files\n");
    ASSERT_EQ(pkgs.size(), 3u);
    EXPECT_TRUE(pkgs[0].held());
    EXPECT_TRUE(pkgs[0].installed());
    EXPECT_FALSE(pkgs[1].held());
    EXPECT_TRUE(pkgs[2].held());
    EXPECT_FALSE(pkgs[2].installed());
}

// The apt facts of Platform survive the JSON round trip (check --json, then --snapshot anywhere),
// and a snapshot written before they existed still loads, with none.

TEST(AptSnapshot, SourcesKeyringsHoldsAndPinsRoundTrip) {
    cudoctor::snapshot::Snapshot s;
    s.platform.os_id = "ubuntu";
    cudoctor::snapshot::AptSource src;
    src.file = "/etc/apt/sources.list.d/cuda-ubuntu2204-12-2-local.list";
    src.line = 1;
    src.uri = "file:///var/cuda-repo-ubuntu2204-12-2-local";
    src.suite = "/";
    src.components = {"main"};
    src.signed_by = "/usr/share/keyrings/cuda-F73B257B-keyring.gpg";
    src.enabled = false;
    src.signed_by_missing = true;
    src.local_dir_missing = true;
    s.platform.apt_sources = {src};
    s.platform.apt_keyrings = {"/usr/share/keyrings/cuda-archive-keyring.gpg"};
    s.platform.held_packages = {{"nvidia-driver-535", "535.183.01-0ubuntu0.22.04.1"}};
    s.platform.apt_pins = {{"/etc/apt/preferences.d/cuda-repository-pin-600", 9, "*", "release l=NVIDIA CUDA", 600},
                           {"/etc/apt/preferences.d/x", 1, "a", "version 1", std::nullopt}};
    const auto back = cudoctor::snapshot::from_json_text(cudoctor::snapshot::to_json_value(s).dump());
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->platform, s.platform);
}

TEST(AptSnapshot, OlderSnapshotWithoutThemLoads) {
    auto j = cudoctor::snapshot::to_json_value(cudoctor::snapshot::Snapshot{});
    for (const char* k : {"apt_sources", "apt_keyrings", "held_packages", "apt_pins"}) {
        ASSERT_TRUE(j["platform"].contains(k)) << k;
        j["platform"].erase(k);
    }
    const auto back = cudoctor::snapshot::from_json_text(j.dump());
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_TRUE(back->platform.apt_sources.empty());
    EXPECT_TRUE(back->platform.held_packages.empty());
}

}  // namespace apt_sources_test

// The two std::regex the apt rules used, kept as the reference the hand-written matchers agree with.
namespace apt_uri_reference {

std::string nvidia_repo(const std::string& uri) {
    static const std::regex form(R"(^https?://developer\.download\.nvidia\.com/compute/cuda/repos/([A-Za-z0-9._-]+)/[A-Za-z0-9_]+/?$)");
    std::smatch m;
    return std::regex_match(uri, m, form) ? m[1].str() : "";
}

std::optional<cudoctor::formats::LocalCudaRepo> local_repo(const std::string& uri) {
    static const std::regex form(R"(^file:(//)?/var/(cuda-repo-[a-z0-9-]+-([0-9]+)-([0-9]+)-local)/?$)");
    std::smatch m;
    if (!std::regex_match(uri, m, form)) return std::nullopt;
    return cudoctor::formats::LocalCudaRepo{m[2].str(), m[3].str() + "." + m[4].str()};
}

void expect_same(const std::string& uri) {
    EXPECT_EQ(cudoctor::formats::nvidia_cuda_repo_of(uri), nvidia_repo(uri)) << uri;
    const auto fast = cudoctor::formats::local_cuda_repo_of(uri);
    const auto plain = local_repo(uri);
    ASSERT_EQ(fast.has_value(), plain.has_value()) << uri;
    if (fast) {
        EXPECT_EQ(fast->name, plain->name) << uri;
        EXPECT_EQ(fast->release, plain->release) << uri;
    }
}

}  // namespace apt_uri_reference

TEST(AptSources, RepositoryUrisMatchTheRegexesTheyReplaced) {
    const std::vector<std::string> uris = {
        "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/",
        "http://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64",
        "https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/",
        "https://developer.download.nvidia.com/compute/cuda/repos/debian12/sbsa/",
        "https://developer.download.nvidia.com/compute/cuda/repos/rhel9.1_x/x86_64//",
        "https://developer.download.nvidia.com/compute/cuda/repos//x86_64/",
        "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/",
        "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86-64/",
        "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/extra",
        "https://developer.download.nvidia.com/compute/cuda/repos/ubu+ntu/x86_64/",
        "httpx://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/",
        "https://developerXdownload.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/",
        "ftp://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/",
        " https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/",
        "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/\n",
        "file:///var/cuda-repo-ubuntu2204-12-4-local",
        "file:///var/cuda-repo-ubuntu2204-12-4-local/",
        "file:/var/cuda-repo-wsl-ubuntu-12-4-local",
        "file://var/cuda-repo-ubuntu2204-12-4-local",
        "file:////var/cuda-repo-ubuntu2204-12-4-local",
        "file:///var/cuda-repo-ubuntu2204-12-4-local//",
        "file:///var/cuda-repo-12-4-local",
        "file:///var/cuda-repo-a-12-4-local",
        "file:///var/cuda-repo-ab--12-4-local",
        "file:///var/cuda-repo-ubuntu2204-12-04-local",
        "file:///var/cuda-repo-ubuntu2204-12-4a-local",
        "file:///var/cuda-repo-ubuntu2204-1-2-3-local",
        "file:///var/cuda-repo-Ubuntu2204-12-4-local",
        "file:///var/cuda-repo-ubuntu2204-12--4-local",
        "file:///var/cuda-repo--12-4-local",
        "file:///var/cuda-repo---12-4-local",
        "file:///var/cuda-repo-ubuntu2204-12-4-locals",
        "file:///var/cuda-repo-ubuntu2204-12-4",
        "file:///var/cuda-repo-cross-aarch64-ubuntu2204-12-6-local",
        "file:///opt/cuda-repo-ubuntu2204-12-4-local",
        "",
        "file:",
        "https://",
    };
    for (const auto& uri : uris) apt_uri_reference::expect_same(uri);
    // Every cut and every one-byte change of the real forms.
    std::mt19937 rng(25);
    const std::string alphabet = "/-._:a0Z9 x";
    for (const std::size_t index : {0u, 15u, 17u, 33u}) {
        const std::string& base = uris[index];
        for (std::size_t cut = 0; cut <= base.size(); ++cut) apt_uri_reference::expect_same(base.substr(0, cut));
        for (int i = 0; i < 400; ++i) {
            std::string changed = base;
            changed[rng() % changed.size()] = alphabet[rng() % alphabet.size()];
            apt_uri_reference::expect_same(changed);
        }
    }
}
