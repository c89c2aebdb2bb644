// `cudoctor plan` on fixture machines through the real binary: the common use (the machine's own
// GPU, OS and driver), WSL2, a VM without the GPU, the script (checked by the real bash), bad
// input, and the plan's consistency with check on each fixture snapshot as the plan leaves it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "host/host.hpp"
#include "integration/run_cudoctor.hpp"
#include "kb/kb.hpp"
#include "probe/context.hpp"
#include "recipe/derive.hpp"
#include "recipe/projected.hpp"
#include "recipe/request.hpp"
#include "recipe/target.hpp"
#include "rules/rules.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test {
namespace {

using nlohmann::json;

std::string root(const std::string& scenario) { return std::string(CUDOCTOR_ROOTS_DIR) + "/" + scenario; }

json plan_json(const std::vector<std::string>& args, int expected_exit = 0) {
    std::vector<std::string> all = {"plan", "--json"};
    all.insert(all.end(), args.begin(), args.end());
    auto run = run_cudoctor(all);
    EXPECT_EQ(run.exit_code, expected_exit) << run.describe() << "\n" << run.err << run.out;
    auto j = json::parse(run.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << run.out;
    return j;
}

std::vector<std::string> layers(const json& plan) {
    std::vector<std::string> out;
    for (const auto& s : plan["steps"]) out.push_back(s["layer"]);
    return out;
}

std::string commands(const json& plan) {
    std::string out;
    for (const auto& s : plan["steps"])
        for (const auto& c : s["commands"]) out += c.get<std::string>() + "\n";
    return out;
}

}  // namespace

TEST(PlanCli, HealthyMachineKeepsItsDriverAndCheckPredictsNoErrors) {
    auto p = plan_json({"--root", root("ubuntu2204-rtx4060ti"), "--framework", "torch==2.1"});
    EXPECT_EQ(p["target"]["gpu"], "GeForce RTX 4060 Ti");
    EXPECT_EQ(p["target"]["driver"], "550.54.15");
    EXPECT_EQ(layers(p), (std::vector<std::string>{"framework"}));
    EXPECT_EQ(p["kept"][0]["layer"], "driver");
    EXPECT_EQ(p["versions"]["framework_variant"], "cu118");
    EXPECT_EQ(p["check_after_plan"]["errors"], json::array());
    for (const auto& o : outside_markers()) EXPECT_EQ(p.dump().find(o), std::string::npos) << o;
}

TEST(PlanCli, MachineThatHasTheSetGetsNoSteps) {
    // The fixture has torch 2.4.0+cu121 and driver 550.54.15: nothing to do, and it says so.
    auto p = plan_json({"--root", root("ubuntu2204-rtx4060ti"), "--framework", "torch==2.4"});
    EXPECT_EQ(p["steps"], json::array());
    ASSERT_EQ(p["kept"].size(), 2u);
    EXPECT_EQ(p["kept"][1]["what"], "torch 2.4.0+cu121");
}

TEST(PlanCli, WslPlansNoDriverAndUsesTheWslRepository) {
    auto p = plan_json({"--root", root("wsl2"), "--framework", "torch==2.4", "--need", "nvcc", "--gpu", "RTX 4060 Ti", "--fresh"});
    EXPECT_TRUE(p["target"]["wsl"].get<bool>());
    for (const auto& s : p["steps"]) EXPECT_NE(s["layer"], "driver");
    const std::string cmds = commands(p);
    EXPECT_NE(cmds.find("/repos/wsl-ubuntu/x86_64/cuda-keyring_1.1-1_all.deb"), std::string::npos) << cmds;
    EXPECT_EQ(cmds.find("nvidia-driver"), std::string::npos) << cmds;
    EXPECT_EQ(p["kept"][0]["what"], "the Windows driver");
}

TEST(PlanCli, VmWithoutGpuSaysSoAndExitsOne) {
    auto run = run_cudoctor({"plan", "--root", root("vmware-no-gpu"), "--framework", "torch==2.4"});
    EXPECT_EQ(run.exit_code, 1) << run.describe() << run.err;
    EXPECT_NE(run.out.find("this vmware virtual machine sees no NVIDIA GPU"), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("nvidia-driver"), std::string::npos) << run.out;
}

TEST(PlanCli, RefusalNamesTheNearestWorkingRelease) {
    auto p = plan_json({"--root", root("ubuntu2204-rtx4060ti"), "--gpu", "RTX 5090", "--framework", "torch==2.0"}, 1);
    EXPECT_EQ(p["refused"]["nearest"], "torch 2.7 (cu128)");
    EXPECT_NE(p["refused"]["reason"].get<std::string>().find("sm_120"), std::string::npos);
}

TEST(PlanCli, ScriptIsValidBashWithRebootPointsAndIsNotRun) {
    auto run = run_cudoctor({"plan", "--root", root("nouveau"), "--framework", "torch==2.1", "--need", "nvcc", "--format", "script"});
    ASSERT_EQ(run.exit_code, 0) << run.describe() << run.err;
    EXPECT_TRUE(run.out.starts_with("#!/usr/bin/env bash\n")) << run.out;
    EXPECT_NE(run.out.find("set -euo pipefail"), std::string::npos);
    EXPECT_NE(run.out.find("# ==== REBOOT POINT"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("blacklist nouveau"), std::string::npos) << run.out;
    TempDir tmp;
    const auto file = tmp.path() / "plan.sh";
    std::ofstream(file) << run.out;
    auto syntax = run_program("/bin/bash", {"-n", file.string()}, {"PATH=/usr/bin:/bin"}, std::chrono::seconds(10));
    EXPECT_EQ(syntax.exit_code, 0) << syntax.err;
}

TEST(PlanCli, BadInputIsOneLineAndExitTwo) {
    for (const auto& args : std::vector<std::vector<std::string>>{{"--framework", "torch==two"},
                                                                  {"--gpu", "RTX 9999"},
                                                                  {"--os", "plan9-4"},
                                                                  {"--need", "fortran"},
                                                                  {"--cuda", "12.x"},
                                                                  {"--framework", "torch==9.9"}}) {
        std::vector<std::string> all = {"plan", "--root", root("ubuntu2204-rtx4060ti")};
        all.insert(all.end(), args.begin(), args.end());
        auto run = run_cudoctor(all);
        EXPECT_EQ(run.exit_code, 2) << args.back() << ": " << run.describe() << run.out;
        EXPECT_TRUE(run.out.empty()) << run.out;
        EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    }
    auto run = run_cudoctor({"plan", "--json", "--root", root("ubuntu2204-rtx4060ti"), "--gpu", "RTX 9999"});
    EXPECT_EQ(json::parse(run.out, nullptr, false)["error"]["code"], "usage error") << run.out;
}

/// The plan applied to each fixture's own snapshot (probed in-process): check finds no error after it.
TEST(PlanCli, EveryPlanOnAFixtureIsCleanForCheck) {
    const auto& kb = kb::Kb::builtin();
    struct Job {
        std::string scenario;
        std::string framework;
        std::vector<std::string> needs;
        std::string gpu;
    };
    for (const auto& job : std::vector<Job>{{"ubuntu2204-rtx4060ti", "torch==2.1", {}, ""},
                                            {"ubuntu2204-rtx4060ti", "tensorflow==2.15", {"cudnn"}, ""},
                                            {"ubuntu2204-rtx4060ti", "jax==0.4.30", {"nvcc"}, ""},
                                            {"ubuntu2204-rtx4060ti", "torch==2.4", {"opencv"}, ""},
                                            {"wsl2", "torch==2.4", {"nvcc", "cudnn"}, "RTX 4060 Ti"},
                                            {"nouveau", "torch==2.4", {"nvcc"}, ""},
                                            {"ubuntu2404-cuda118", "torch==2.1", {"nvcc"}, ""}}) {
        SCOPED_TRACE(job.scenario + " " + job.framework);
        auto host = host::Host::rooted(root(job.scenario));
        ASSERT_TRUE(host);
        const auto before = probe::probe_machine(*host, kb, probe::Options{.pythons = {}, .allow_processes = false});
        recipe::Request r;
        r.framework = *recipe::parse_framework(job.framework);
        for (const auto& n : job.needs) {
            r.need_nvcc |= n == "nvcc";
            r.need_cudnn |= n == "cudnn";
            r.need_opencv |= n == "opencv";
        }
        if (!job.gpu.empty()) r.gpu = job.gpu;
        auto target = recipe::make_target(before, r, kb);
        ASSERT_TRUE(target) << target.error().message;
        auto plan = recipe::derive_plan(r, *target, kb);
        ASSERT_TRUE(plan) << plan.error().message;
        ASSERT_FALSE(plan->refused) << plan->refused->reason;
        for (const auto& f : rules::evaluate(recipe::projected_snapshot(before, *plan, kb), kb))
            EXPECT_NE(f.severity, snapshot::Severity::error) << f.id << ": " << f.title;
    }
}

}  // namespace cudoctor::test
