// `cudoctor list` and `cudoctor use` / `init` on the toolkits-repo-driver machine: 11.8 from the
// runfile (cuDNN copied in), 12.1 and 12.4 from NVIDIA's repository, update-alternatives.
// The shell code `use` prints is run by real bash, zsh and fish.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "integration/toolkits_support.hpp"

namespace cudoctor::test {
namespace {

nlohmann::json list_json() {
    auto run = run_cudoctor({"list", "--root", kToolkitsRoot, "--json"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return nlohmann::json::parse(run.out);
}

const nlohmann::json* by_path(const nlohmann::json& list, const std::string& path) {
    for (const auto& t : list["toolkits"])
        if (t["path"] == path) return &t;
    return nullptr;
}

bool has_reference(const nlohmann::json& t, const std::string& kind, const std::string& file) {
    for (const auto& r : t["references"])
        if (r["kind"] == kind && r["file"] == file) return true;
    return false;
}

TEST(ToolkitsList, EveryToolkitWithMethodDefaultShellWinnerCudnnAndReferences) {
    auto j = list_json();
    ASSERT_EQ(j["toolkits"].size(), 3u);
    const auto* t118 = by_path(j, "/usr/local/cuda-11.8");
    const auto* t121 = by_path(j, "/usr/local/cuda-12.1");
    const auto* t124 = by_path(j, "/usr/local/cuda-12.4");
    ASSERT_TRUE(t118 && t121 && t124);
    EXPECT_EQ((*t118)["install_method"], "runfile");
    EXPECT_EQ((*t121)["install_method"], "deb");
    EXPECT_EQ((*t124)["release"], "12.4.1");
    EXPECT_EQ((*t124)["version"], "12.4.131");
    EXPECT_TRUE((*t124)["is_default"]);
    EXPECT_FALSE((*t118)["is_default"]);
    EXPECT_EQ(j["default_via"], "/etc/alternatives/cuda");
    EXPECT_TRUE((*t118)["wins_in_shell"]);
    EXPECT_EQ((*t118)["cudnn"], nlohmann::json::array({"8.9.7"}));
    EXPECT_TRUE((*t124)["cudnn"].empty());
    EXPECT_GT((*t118)["size_bytes"].get<std::uint64_t>(), 10000u);  // the stub libraries alone
    EXPECT_TRUE(has_reference(*t118, "ld.so.conf.d", "/etc/ld.so.conf.d/cuda-11-8.conf"));
    EXPECT_TRUE(has_reference(*t118, "shell rc", "/home/dev/.bashrc"));
    EXPECT_TRUE(has_reference(*t121, "modulefile", "/usr/share/modules/modulefiles/cuda/12.1"));
    EXPECT_TRUE(has_reference(*t121, "shell rc", "/home/dev/.zshrc"));
    EXPECT_TRUE(has_reference(*t124, "alternatives", "/etc/alternatives/cuda"));
    EXPECT_TRUE(has_reference(*t124, "alternatives", "/var/lib/dpkg/alternatives/cuda"));
    EXPECT_FALSE(has_reference(*t124, "shell rc", "/home/dev/.bashrc"));
}

TEST(ToolkitsList, TextNamesTheDefaultAndTheShellWinner) {
    auto run = run_cudoctor({"list", "--root", kToolkitsRoot});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("[default: /usr/local/cuda via /etc/alternatives/cuda]"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("[wins in this shell]"), std::string::npos);
    EXPECT_NE(run.out.find("cuDNN 8.9.7"), std::string::npos);
}

TEST(ToolkitsUse, AmbiguousVersionIsAnErrorListingTheChoices) {
    auto run = run_program(CUDOCTOR_BINARY, {"use", "12", "--root", kToolkitsRoot}, shell_environment(), std::chrono::seconds(30));
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.err.find("12 is ambiguous"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("/usr/local/cuda-12.1"), std::string::npos);
    EXPECT_NE(run.err.find("/usr/local/cuda-12.4"), std::string::npos);
    EXPECT_EQ(run.out, "false\n");  // eval of it fails, nothing is exported
}

TEST(ToolkitsUse, UnknownVersionAndGarbageAreOneLineErrors) {
    auto none = run_program(CUDOCTOR_BINARY, {"use", "10.2", "--root", kToolkitsRoot}, shell_environment(), std::chrono::seconds(30));
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_EQ(none.err,
              "cudoctor use: no CUDA toolkit 10.2 installed (installed: 11.8 (/usr/local/cuda-11.8, runfile), "
              "12.1.1 (/usr/local/cuda-12.1, deb), 12.4.1 (/usr/local/cuda-12.4, deb))\n");
    auto junk = run_program(CUDOCTOR_BINARY, {"use", "12.x;rm", "--root", kToolkitsRoot}, shell_environment(), std::chrono::seconds(30));
    EXPECT_EQ(junk.exit_code, 2);
    EXPECT_EQ(junk.err, "cudoctor use: '12.x;rm' is not a version (say 12, 12.4 or 12.4.1)\n");
}

/// What bash sees after evaluating `cudoctor use 12.4` once and twice.
TEST(ToolkitsUse, BashSwitchesRemovesOldEntriesAndIsIdempotent) {
    const std::string bin = CUDOCTOR_BINARY;
    const std::string use = "eval \"$('" + bin + "' use 12.4 --shell bash --root '" + kToolkitsRoot + "')\"";
    const std::string show = "printf '%s\\n%s\\n%s\\n' \"$PATH\" \"$LD_LIBRARY_PATH\" \"$CUDA_HOME\"";
    auto run = run_shell("/bin/bash", use + " && " + show + " && " + use + " && " + show, shell_environment());
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const std::string once = "/usr/local/cuda-12.4/bin:/usr/bin:/bin\n/usr/local/cuda-12.4/lib64:/opt/other/lib\n/usr/local/cuda-12.4\n";
    EXPECT_EQ(run.out, once + once);
}

TEST(ToolkitsUse, VersionPinFromCudaVersionFileUpward) {
    auto run = run_program(CUDOCTOR_BINARY, {"use", "--shell", "bash", "--root", kToolkitsRoot, "--dir", "/home/dev/project/sub"},
                           shell_environment(), std::chrono::seconds(30));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("pinned by /home/dev/project/.cuda-version"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("export CUDA_HOME=/usr/local/cuda-12.1\n"), std::string::npos);
    auto none =
        run_program(CUDOCTOR_BINARY, {"use", "--root", kToolkitsRoot, "--dir", "/home/dev"}, shell_environment(), std::chrono::seconds(30));
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_EQ(none.err, "cudoctor use: no version given and no .cuda-version file in /home/dev or above it (inside the image " +
                            std::filesystem::canonical(kToolkitsRoot).string() + ")\n");
}

/// `cudoctor init SHELL` defines a function; `cudoctor use VERSION` then switches that shell.
void check_init(const std::string& shell, const std::string& name) {
    if (!have(shell)) GTEST_SKIP() << shell << " is not installed";
    const std::string bin = CUDOCTOR_BINARY;
    std::string script;
    if (name == "fish") {
        script = "'" + bin + "' init fish | source; cudoctor use 12.1 --root '" + kToolkitsRoot + "'; cudoctor use 12.1 --root '" +
                 kToolkitsRoot + "'; printf '%s\\n' \"$CUDA_HOME\" (string join : $PATH) (string join : $LD_LIBRARY_PATH)";
    } else {
        script = "eval \"$('" + bin + "' init " + name + ")\"; cudoctor use 12.1 --root '" + kToolkitsRoot +
                 "' && cudoctor use 12.1 --root '" + kToolkitsRoot + "' && printf '%s\\n' \"$CUDA_HOME\" \"$PATH\" \"$LD_LIBRARY_PATH\"";
    }
    auto run = run_shell(shell, script, shell_environment());
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    EXPECT_EQ(run.out, "/usr/local/cuda-12.1\n/usr/local/cuda-12.1/bin:/usr/bin:/bin\n/usr/local/cuda-12.1/lib64:/opt/other/lib\n");
}

TEST(ToolkitsUse, InitBashFunction) { check_init("/bin/bash", "bash"); }
TEST(ToolkitsUse, InitZshFunction) { check_init("/usr/bin/zsh", "zsh"); }
TEST(ToolkitsUse, InitFishFunction) { check_init("/usr/bin/fish", "fish"); }

TEST(ToolkitsUse, InitRefusesAnUnknownShell) {
    auto run = run_cudoctor({"init", "tcsh"});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_EQ(run.err, "cudoctor init: unknown shell 'tcsh' (bash, zsh or fish)\n");
}

}  // namespace
}  // namespace cudoctor::test
