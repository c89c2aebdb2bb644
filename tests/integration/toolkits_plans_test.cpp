// `cudoctor switch` and `cudoctor uninstall` on a temporary copy of toolkits-repo-driver, where
// the driver (cuda-drivers → nvidia-driver-550) came from the same NVIDIA repository as 12.1 and
// 12.4: plans printed, applied with --apply (the deb removal by the real dpkg --root), and a
// step made to fail on purpose to prove the rollback or the printed undo.
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "integration/toolkits_support.hpp"
#include "support/files.hpp"
#include "support/mutable_root.hpp"
#include "toolkits/dpkg_owner.hpp"

namespace cudoctor::test {
namespace {

namespace fs = std::filesystem;

std::string link_of(const MutableRoot& root, const std::string& machine_path) {
    std::error_code ec;
    return fs::read_symlink(root.path() / machine_path.substr(1), ec).string();
}

/// ldconfig -r and dpkg --root change an image only as root (chroot); elsewhere the plan's
/// preflight says "needs root" and changes nothing.
bool am_root() { return ::geteuid() == 0; }

/// cudoctor with the scenario environment; PATH as root's (dpkg wants ldconfig and
/// start-stop-daemon on it), plus `extra_env`.
RunResult cudoctor_env(const std::vector<std::string>& args, const std::vector<std::string>& extra_env = {}) {
    auto env = outside_environment();
    std::erase_if(env, [](const std::string& e) { return e.starts_with("PATH="); });
    env.emplace_back("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    env.insert(env.end(), extra_env.begin(), extra_env.end());
    return run_program(CUDOCTOR_BINARY, args, env, std::chrono::seconds(60));
}

TEST(ToolkitsPlans, NoPlanEverListsADriverPackageOrDriverFile) {
    for (const std::string cmd : {"uninstall", "switch"}) {
        for (const std::string v : {"11.8", "12.1", "12.4"}) {
            auto run = run_cudoctor({cmd, v, "--root", kToolkitsRoot, "--json"});
            ASSERT_EQ(run.exit_code, 0) << cmd << " " << v << ": " << run.err;
            auto j = nlohmann::json::parse(run.out);
            for (const auto& step : j["plan"]["steps"]) {
                for (const auto& a : step.value("argv", nlohmann::json::array())) {
                    const std::string arg = a.get<std::string>();
                    EXPECT_FALSE(toolkits::is_driver_package(arg)) << cmd << " " << v << " lists " << arg;
                    EXPECT_EQ(arg.find("nvidia"), std::string::npos) << arg;
                    EXPECT_EQ(arg.find("cuda-compat"), std::string::npos) << arg;
                }
                const std::string path = step.value("path", "");
                EXPECT_FALSE(toolkits::is_driver_file(path)) << path;
                EXPECT_FALSE(path.starts_with("/usr/lib/x86_64-linux-gnu")) << path;
            }
        }
    }
}

TEST(ToolkitsPlans, UninstallDebPurgesTheExactPackagesOfThatVersion) {
    auto run = run_cudoctor({"uninstall", "12.4", "--root", kToolkitsRoot, "--json"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    auto j = nlohmann::json::parse(run.out);
    std::vector<std::string> argv;
    for (const auto& step : j["plan"]["steps"])
        if (step["kind"] == "command" && step["argv"][0] == "/usr/bin/dpkg") argv = step["argv"].get<std::vector<std::string>>();
    EXPECT_EQ(argv, (std::vector<std::string>{"/usr/bin/dpkg", "--purge", "cuda-12-4", "cuda-cudart-12-4", "cuda-cudart-dev-12-4",
                                              "cuda-nvcc-12-4", "cuda-runtime-12-4", "cuda-toolkit-12-4", "cuda-toolkit-12-4-config-common",
                                              "libcublas-12-4"}));
    const std::string notes = j["plan"]["notes"].dump();
    EXPECT_NE(notes.find("cuda-compat-12-4: holds driver files"), std::string::npos) << notes;
}

TEST(ToolkitsPlans, SwitchApplyRepointsTheAlternativesLinkAtomically) {
    if (!am_root()) GTEST_SKIP() << "ldconfig -r needs root";
    MutableRoot root("toolkits-repo-driver");
    auto run = cudoctor_env({"switch", "12.1", "--root", root.path().string(), "--apply"});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_EQ(link_of(root, "/etc/alternatives/cuda"), "/usr/local/cuda-12.1");
    EXPECT_EQ(link_of(root, "/usr/local/cuda"), "/etc/alternatives/cuda");  // still update-alternatives' chain
    EXPECT_TRUE(slurp(root.path() / "var/lib/dpkg/alternatives/cuda").starts_with("manual\n/usr/local/cuda\n"));
    EXPECT_FALSE(fs::exists(root.path() / "etc/alternatives/cuda.cudoctor-new"));
    auto list = nlohmann::json::parse(run_cudoctor({"list", "--root", root.path().string(), "--json", "--no-size"}).out);
    for (const auto& t : list["toolkits"]) EXPECT_EQ(t["is_default"].get<bool>(), t["path"] == "/usr/local/cuda-12.1");
}

TEST(ToolkitsPlans, SwitchToAToolkitOutsideAlternativesRepointsTheLinkAndWarns) {
    MutableRoot root("toolkits-repo-driver");
    root.remove("/etc/ld.so.conf.d/000_cuda.conf").remove("/etc/ld.so.conf.d/988_cuda-12.conf");  // no ldconfig step: any user
    auto run = cudoctor_env({"switch", "11.8", "--root", root.path().string(), "--apply"});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_EQ(link_of(root, "/usr/local/cuda"), "/usr/local/cuda-11.8");
    EXPECT_NE(run.out.find("not registered with update-alternatives"), std::string::npos) << run.out;
}

TEST(ToolkitsPlans, SwitchEndsWithTheCheckThatItTookAndTheWayBackWhichWorks) {
    MutableRoot root("toolkits-repo-driver");
    root.remove("/etc/ld.so.conf.d/000_cuda.conf").remove("/etc/ld.so.conf.d/988_cuda-12.conf");  // no ldconfig step: any user
    const std::string r = root.path().string();
    auto dry = cudoctor_env({"switch", "11.8", "--root", r});
    ASSERT_EQ(dry.exit_code, 0) << dry.out << dry.err;
    // On an image the check reads the link (list), never runs the image's nvcc.
    EXPECT_NE(dry.out.find("Afterwards, check that it took:\n  $ cudoctor list --root " + r), std::string::npos) << dry.out;
    EXPECT_EQ(dry.out.find("nvcc --version"), std::string::npos) << dry.out;
    const std::string back = "To go back: cudoctor switch /usr/local/cuda-12.4 --root " + r + " --apply\n";
    ASSERT_NE(dry.out.find(back), std::string::npos) << dry.out;
    const auto json = nlohmann::json::parse(cudoctor_env({"switch", "11.8", "--root", r, "--json"}).out);
    EXPECT_EQ(json["plan"]["rollback"], "cudoctor switch /usr/local/cuda-12.4 --root " + r + " --apply");

    ASSERT_EQ(cudoctor_env({"switch", "11.8", "--root", r, "--apply"}).exit_code, 0);
    EXPECT_EQ(link_of(root, "/usr/local/cuda"), "/usr/local/cuda-11.8");
    // The way back as printed, run by a shell: 12.4 is the default again.
    const std::string line =
        back.substr(std::string("To go back: cudoctor").size(), back.size() - 1 - std::string("To go back: cudoctor").size());
    auto undo =
        run_program("/bin/sh", {"-c", std::string("'") + CUDOCTOR_BINARY + "'" + line}, {"PATH=/usr/bin:/bin"}, std::chrono::seconds(30));
    ASSERT_EQ(undo.exit_code, 0) << undo.describe() << undo.out << undo.err;
    auto list = nlohmann::json::parse(run_cudoctor({"list", "--root", r, "--json", "--no-size"}).out);
    for (const auto& t : list["toolkits"]) EXPECT_EQ(t["is_default"].get<bool>(), t["path"] == "/usr/local/cuda-12.4") << t["path"];
}

TEST(ToolkitsPlans, HalfFailedSwitchRollsBackAndTheLinkIsNeverMissing) {
    MutableRoot root("toolkits-repo-driver");
    root.remove("/etc/ld.so.conf.d/000_cuda.conf").remove("/etc/ld.so.conf.d/988_cuda-12.conf");
    const std::string admin_before = slurp(root.path() / "var/lib/dpkg/alternatives/cuda");
    auto run = cudoctor_env({"switch", "12.1", "--root", root.path().string(), "--apply"}, {"CUDOCTOR_PLAN_FAIL_AT=2"});
    EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_NE(run.out.find("everything before it was rolled back; the machine is as it was"), std::string::npos) << run.out;
    EXPECT_EQ(link_of(root, "/etc/alternatives/cuda"), "/usr/local/cuda-12.4");
    EXPECT_EQ(link_of(root, "/usr/local/cuda"), "/etc/alternatives/cuda");
    EXPECT_EQ(slurp(root.path() / "var/lib/dpkg/alternatives/cuda"), admin_before);
}

TEST(ToolkitsPlans, UninstallRunfileApplyRemovesItAndItsLeftoversOnly) {
    if (!am_root()) GTEST_SKIP() << "ldconfig -r needs root";
    MutableRoot root("toolkits-repo-driver");
    auto run = cudoctor_env({"uninstall", "11.8", "--root", root.path().string(), "--apply"});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_FALSE(fs::exists(root.path() / "usr/local/cuda-11.8"));
    EXPECT_FALSE(fs::exists(root.path() / "etc/ld.so.conf.d/cuda-11-8.conf"));
    EXPECT_TRUE(fs::exists(root.path() / "usr/local/cuda-12.1/bin/nvcc"));
    EXPECT_TRUE(fs::exists(root.path() / "usr/local/cuda-12.4/bin/nvcc"));
    const std::string bashrc = slurp(root.path() / "home/dev/.bashrc");
    EXPECT_EQ(bashrc.find("cuda-11.8"), std::string::npos) << bashrc;
    EXPECT_NE(bashrc.find("alias nvcc-all='ls /usr/local/cuda-12.1/bin/nvcc'"), std::string::npos) << bashrc;
    EXPECT_NE(bashrc.find("alias ll='ls -alF'"), std::string::npos);
    EXPECT_EQ(link_of(root, "/etc/alternatives/cuda"), "/usr/local/cuda-12.4");
}

TEST(ToolkitsPlans, UninstallDebApplyWithTheRealDpkgKeepsTheDriver) {
    if (!am_root()) GTEST_SKIP() << "dpkg --root and ldconfig -r need root";
    if (!have("/usr/bin/dpkg")) GTEST_SKIP() << "no dpkg";
    MutableRoot root("toolkits-repo-driver");
    auto run = cudoctor_env({"uninstall", "12.4", "--root", root.path().string(), "--apply"});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_FALSE(fs::exists(root.path() / "usr/local/cuda-12.4/bin/nvcc"));
    EXPECT_FALSE(fs::exists(root.path() / "usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12.4.127"));
    // cuda-compat-12-4's forward-compatibility libcuda is the driver's: it stays, with its folder.
    EXPECT_TRUE(fs::exists(root.path() / "usr/local/cuda-12.4/compat/libcuda.so.550.54.15"));
    EXPECT_TRUE(fs::exists(root.path() / "usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"));
    EXPECT_TRUE(fs::exists(root.path() / "usr/local/cuda-12.1/bin/nvcc"));
    const std::string status = slurp(root.path() / "var/lib/dpkg/status");
    for (const char* kept : {"Package: cuda-drivers\n", "Package: nvidia-driver-550\n", "Package: libnvidia-compute-550\n",
                             "Package: cuda-nvcc-12-1\n", "Package: cuda-compat-12-4\n", "Package: cuda-toolkit-12-config-common\n"})
        EXPECT_NE(status.find(kept), std::string::npos) << kept;
    for (const char* gone : {"Package: cuda-nvcc-12-4\n", "Package: libcublas-12-4\n", "Package: cuda-12-4\n"})
        EXPECT_EQ(status.find(gone), std::string::npos) << gone;
    EXPECT_EQ(link_of(root, "/etc/alternatives/cuda"), "/usr/local/cuda-12.1");
    EXPECT_EQ(slurp(root.path() / "var/lib/dpkg/alternatives/cuda").find("cuda-12.4"), std::string::npos);
}

TEST(ToolkitsPlans, HalfFailedUninstallAfterDpkgPrintsTheExactUndo) {
    if (!am_root()) GTEST_SKIP() << "dpkg --root needs root";
    if (!have("/usr/bin/dpkg")) GTEST_SKIP() << "no dpkg";
    MutableRoot root("toolkits-repo-driver");
    // Steps: 1-4 alternatives, 5 ld.so.conf.d, 6 dpkg --purge, 7 ldconfig (the folder stays: cuda-compat).
    auto run = cudoctor_env({"uninstall", "12.4", "--root", root.path().string(), "--apply"}, {"CUDOCTOR_PLAN_FAIL_AT=7"});
    EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_NE(run.out.find("To undo what was done, run:\n    apt-get install cuda-12-4=12.4.1-1 cuda-cudart-12-4=12.4.127-1"), std::string::npos)
        << run.out;
    // The file steps before the purge were rolled back: the link chain is whole and as it was.
    EXPECT_EQ(link_of(root, "/usr/local/cuda"), "/etc/alternatives/cuda");
    EXPECT_EQ(link_of(root, "/etc/alternatives/cuda"), "/usr/local/cuda-12.4");
    EXPECT_TRUE(fs::exists(root.path() / "etc/ld.so.conf.d/cuda-12-4.conf"));
}

TEST(ToolkitsPlans, PreflightRefusesAWriteIntoAMissingFolderAndChangesNothing) {
    MutableRoot root("toolkits-repo-driver");
    auto run = cudoctor_env({"modulefile", "12.4", "--root", root.path().string(), "--dir", "/opt/nowhere", "--apply"});
    EXPECT_EQ(run.exit_code, 2) << run.out;
    EXPECT_NE(run.out.find("Nothing was changed"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("step 1: /opt: No such file or directory"), std::string::npos) << run.out;
    EXPECT_FALSE(fs::exists(root.path() / "opt"));
}

TEST(ToolkitsPlans, ModulefilesIntoAFolderWithoutCudaMakeItFirst) {
    // DIR exists, DIR/cuda does not: making it is the plan's first step, so the dry run and
    // --apply agree (the dry run used to pass and --apply to fail on the missing folder).
    MutableRoot root("toolkits-repo-driver");
    fs::create_directories(root.path() / "opt/modules");
    const std::vector<std::string> args{"modulefile", "--all", "--root", root.path().string(), "--dir", "/opt/modules"};
    const auto plan_of = [&] {
        auto json_args = args;
        json_args.push_back("--json");
        return nlohmann::json::parse(run_cudoctor(json_args).out)["plan"];
    };
    const auto dry = plan_of();
    const auto& steps = dry["steps"];
    ASSERT_GE(steps.size(), 2u) << dry.dump(2);
    EXPECT_EQ(steps[0]["kind"], "make_folder");
    EXPECT_EQ(steps[0]["path"], "/opt/modules/cuda");
    EXPECT_EQ(steps[0]["undo"], "rmdir /opt/modules/cuda");
    for (std::size_t i = 1; i < steps.size(); ++i) EXPECT_EQ(steps[i]["kind"], "write_file") << steps[i].dump();
    EXPECT_FALSE(fs::exists(root.path() / "opt/modules/cuda"));  // a dry run changes nothing

    auto applied = args;
    applied.push_back("--apply");
    const auto run = cudoctor_env(applied);
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("Done: " + std::to_string(steps.size()) + " steps applied."), std::string::npos) << run.out;
    for (std::size_t i = 1; i < steps.size(); ++i) {
        const std::string path = steps[i]["path"];
        EXPECT_EQ(slurp(root.path() / path.substr(1)), steps[i]["content"].get<std::string>()) << path;
    }
    // Run again: the folder is there now, so the plan only writes the files.
    EXPECT_EQ(plan_of()["steps"].size(), steps.size() - 1);
}

TEST(ToolkitsPlans, AFailedModulefileApplyTakesTheNewFolderAway) {
    MutableRoot root("toolkits-repo-driver");
    fs::create_directories(root.path() / "opt/modules");
    auto run = cudoctor_env({"modulefile", "--all", "--root", root.path().string(), "--dir", "/opt/modules", "--apply"},
                            {"CUDOCTOR_PLAN_FAIL_AT=3"});
    EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_NE(run.out.find("everything before it was rolled back; the machine is as it was"), std::string::npos) << run.out;
    EXPECT_FALSE(fs::exists(root.path() / "opt/modules/cuda"));
    EXPECT_TRUE(fs::is_directory(root.path() / "opt/modules"));
}

TEST(UninstallPlan, CondaRemovalSaysTheTorchThatDependsOnItGoesToo) {
    // `conda remove cudatoolkit` removes every package that depends on it: cudnn (cudatoolkit
    // 11.3.*) and pytorch (cudatoolkit >=11.3,<11.4). The plan says so, and no longer claims
    // that conda environments are not touched when it is one.
    const std::string root = std::string(CUDOCTOR_ROOTS_DIR) + "/cpu-only-conda";
    auto run = run_cudoctor({"uninstall", "11.3", "--root", root});
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_NE(run.out.find("conda remove -y -p /home/bob/miniconda3/envs/ml cudatoolkit"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("conda also removes what depends on cudatoolkit in /home/bob/miniconda3/envs/ml: cudnn 8.2.1, pytorch 1.12.1"),
              std::string::npos)
        << run.out;
    EXPECT_EQ(run.out.find("this plan does not touch them"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("only the conda environment /home/bob/miniconda3/envs/ml changes"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace cudoctor::test
