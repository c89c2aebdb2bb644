// check on the machines of cudnn-links-flattened and distro-cuda-toolkit-old
// (tests/fixtures/README.md tells each machine's story): where each fires, what it says, fixes and
// explains, and that every other fixture machine stays silent.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/json_query.hpp"

namespace cudoctor::test {
namespace cudnnlinks_fixtures_test {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kFlattened = "ubuntu2204-cudnn-flattened";
const std::string kDistroWins = "ubuntu2204-distro-nvcc-wins";
const std::string kDistroOnly = "ubuntu2204-distro-cuda-toolkit";
const std::string kLib = "/usr/local/cuda-12.4/targets/x86_64-linux/lib";

json check_json(const std::string& scenario) {
    auto run = run_cudoctor({"check", "--json", "--root", std::string(CUDOCTOR_ROOTS_DIR) + "/" + scenario});
    EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.describe() << "\n" << run.err;
    return json::parse(run.out);
}

const json* cudnn_at(const json& snap, const std::string& prefix) {
    for (const auto& c : snap["cudnn"])
        if (c["path"].get<std::string>().starts_with(prefix)) return &c;
    return nullptr;
}

TEST(CudnnlinksFixtures, TheFlattenedCopyStaysRegularFilesAfterLdconfig) {
    // The fixture is real only if the build's ldconfig (as on the machine) left the copies alone.
    const fs::path lib = fs::path(CUDOCTOR_ROOTS_DIR) / kFlattened / kLib.substr(1);
    for (const char* n : {"libcudnn.so.9", "libcudnn.so", "libcudnn_ops.so.9", "libcudnn_graph.so"}) {
        EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(lib / n))) << n;
    }
    EXPECT_EQ(fs::file_size(lib / "libcudnn.so.9"), fs::file_size(lib / "libcudnn.so.9.1.0"));
    // ldconfig read the folder (/etc/ld.so.conf.d/cuda.conf) and kept the copy as the SONAME's file.
    const auto cache = run_cudoctor({"check", "--json", "--root", (fs::path(CUDOCTOR_ROOTS_DIR) / kFlattened).string()});
    EXPECT_NE(cache.out.find("\"/usr/local/cuda/lib64/libcudnn.so.9\""), std::string::npos) << cache.out.substr(0, 2000);
}

TEST(CudnnlinksFixtures, FlattenedCudnnFiresWithEveryChainsLinks) {
    const auto snap = check_json(kFlattened);
    const json* f = finding(snap, "cudnn-links-flattened");
    ASSERT_NE(f, nullptr) << snap["findings"].dump(2);
    EXPECT_EQ((*f)["severity"], "warning");
    const std::string title = (*f)["title"];
    EXPECT_NE(title.find("cuDNN at " + kLib + ": 6 library names copied as files instead of links ("), std::string::npos) << title;
    const std::string fix = (*f)["fix"];
    for (const std::string stem : {"libcudnn", "libcudnn_graph", "libcudnn_ops"}) {
        EXPECT_NE(fix.find("sudo ln -sf " + stem + ".so.9.1.0 " + kLib + "/" + stem + ".so.9\n"), std::string::npos) << fix;
        EXPECT_NE(fix.find("sudo ln -sf " + stem + ".so.9 " + kLib + "/" + stem + ".so\n"), std::string::npos) << fix;
    }
    EXPECT_TRUE(fix.ends_with("\nsudo ldconfig")) << fix;
    EXPECT_EQ(fix.find("engines_precompiled"), std::string::npos) << fix;  // one file, no chain
    // The wheel beside it holds libcudnn.so.9 alone: no chain, nothing flattened.
    const json* wheel = cudnn_at(snap, "/home/alice/.local/lib/python3.10/site-packages/nvidia/cudnn");
    ASSERT_NE(wheel, nullptr) << snap["cudnn"].dump(2);
    EXPECT_TRUE((*wheel)["flattened"].empty()) << wheel->dump(2);
}

TEST(CudnnlinksFixtures, EveryOtherMachineIsSilent) {
    for (const auto& e : fs::directory_iterator(CUDOCTOR_ROOTS_DIR)) {
        if (!e.is_directory() || e.path().filename() == kFlattened) continue;
        auto run = run_cudoctor({"check", "--json", "--root", e.path().string()});
        if (run.exit_code != 0 && run.exit_code != 1) continue;  // not a machine check reads (its own tests say why)
        EXPECT_EQ(finding(json::parse(run.out), "cudnn-links-flattened"), nullptr) << e.path().filename();
    }
}

TEST(CudnnlinksDistroFixtures, DistroNvccWinningOverNvidiasToolkitFiresAndExplainsTheRest) {
    const auto snap = check_json(kDistroWins);
    const json* f = finding(snap, "distro-cuda-toolkit-old");
    ASSERT_NE(f, nullptr) << snap["findings"].dump(2);
    EXPECT_EQ((*f)["title"], "nvcc on PATH is the distribution's nvidia-cuda-toolkit, CUDA 11.5.1 (/usr/lib/nvidia-cuda-toolkit/bin/nvcc)");
    const std::string why = (*f)["why"];
    EXPECT_NE(why.find("CUDA 12.4.131 (/usr/local/cuda-12.4) is installed but loses on PATH"), std::string::npos) << why;
    EXPECT_NE(why.find("needs CUDA ≥ 11.8"), std::string::npos) << why;
    EXPECT_NE(why.find("torch 2.4.0"), std::string::npos) << why;
    EXPECT_TRUE((*f)["fix"].get<std::string>().starts_with("export PATH=/usr/local/cuda/bin${PATH:+:$PATH}\n")) << (*f)["fix"];
    for (const std::string effect : {"nvcc-shadowed", "gpu-arch-unsupported-by-toolkit", "extension-build-cuda-mismatch"}) {
        const json* e = finding(snap, effect);
        ASSERT_NE(e, nullptr) << effect << "\n" << snap["findings"].dump(2);
        EXPECT_EQ((*e)["consequence_of"], "distro-cuda-toolkit-old") << effect;
    }
}

TEST(CudnnlinksDistroFixtures, DistroToolkitThatServesTheMachineIsFoundAndSilent) {
    const auto snap = check_json(kDistroOnly);
    const json* tk = find_by(snap["toolkits"], "path", "/usr/lib/nvidia-cuda-toolkit");
    ASSERT_NE(tk, nullptr) << snap["toolkits"].dump(2);
    EXPECT_EQ((*tk)["version"], "11.5.1");
    EXPECT_EQ((*tk)["install_method"], "deb");
    EXPECT_TRUE((*tk)["first_on_path"].get<bool>());
    EXPECT_EQ(finding(snap, "distro-cuda-toolkit-old"), nullptr) << snap["findings"].dump(2);
    EXPECT_EQ(finding(snap, "gpu-arch-unsupported-by-toolkit"), nullptr) << snap["findings"].dump(2);  // RTX 3070: CUDA ≥ 11.1
}

TEST(CudnnlinksDistroFixtures, EveryOtherMachineIsSilent) {
    for (const auto& e : fs::directory_iterator(CUDOCTOR_ROOTS_DIR)) {
        if (!e.is_directory() || e.path().filename() == kDistroWins) continue;
        auto run = run_cudoctor({"check", "--json", "--root", e.path().string()});
        if (run.exit_code != 0 && run.exit_code != 1) continue;  // not a machine check reads (its own tests say why)
        EXPECT_EQ(finding(json::parse(run.out), "distro-cuda-toolkit-old"), nullptr) << e.path().filename();
    }
}

}  // namespace cudnnlinks_fixtures_test
}  // namespace cudoctor::test
