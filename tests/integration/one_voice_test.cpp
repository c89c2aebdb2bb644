// One voice: for every fixture machine (and variants of them on other distributions and GPUs), the
// driver / toolkit / cuDNN install commands that `check`'s fixes print and the steps `plan
// --fresh` prints for the same machine are the same lines. Both run through the real binary; the
// test prints each pair it compares, so a failure shows the two texts side by side.
//
// Two comparisons per machine:
//   1. every install block in a `check` finding's fix is identical to the step of a `plan --fresh`
//      asked for the same version (the branch the block installs; the CUDA release it installs);
//   2. every driver / toolkit / cuDNN step of `plan --fresh --need opencv` is identical to what the
//      fix builders `check` uses (recipe::driver_fix, toolkit_fix, cudnn_install) give for the
//      machine's snapshot, as `check --json` wrote it, with the plan's versions.
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <optional>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "common/text.hpp"
#include "integration/run_cudoctor.hpp"
#include "kb/kb.hpp"
#include "recipe/install.hpp"
#include "snapshot/snapshot_json.hpp"
#include "support/mutable_root.hpp"

namespace cudoctor::test {
namespace {

using nlohmann::json;

struct Machine {
    std::string name;
    std::string root;
    std::shared_ptr<MutableRoot> copy;  ///< keeps a variant's folder alive
};

std::vector<std::string> lines_of(const std::string& block) {
    std::vector<std::string> out;
    for (auto line : text::split(block, '\n')) out.emplace_back(line);
    return out;
}

std::string joined(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
}

std::string shown(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += "    " + l + "\n";
    return out;
}

std::vector<Machine> machines() {
    std::vector<Machine> out;
    for (const auto& e : std::filesystem::directory_iterator(CUDOCTOR_ROOTS_DIR))
        if (e.is_directory()) out.push_back({e.path().filename().string(), e.path().string(), nullptr});
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    // The same machines on other distributions and with another GPU, so every install route of
    // the recipe is met: Debian's, an unknown distribution with Secure Boot on (DKMS and MOK), and
    // a GPU the installed toolkit cannot build for (a toolkit fix).
    auto variant = [&](const std::string& name, const std::string& base, auto change) {
        auto copy = std::make_shared<MutableRoot>(base);
        change(*copy);
        out.push_back({name, copy->path().string(), copy});
    };
    variant("nouveau-on-debian12", "nouveau", [](MutableRoot& r) {
        r.write("/etc/os-release", "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_ID=\"12\"\n");
    });
    variant("nouveau-on-fedora40", "nouveau",
            [](MutableRoot& r) { r.write("/etc/os-release", "PRETTY_NAME=\"Fedora Linux 40\"\nID=fedora\nVERSION_ID=40\n"); });
    variant("cuda118-with-rtx5090", "ubuntu2404-cuda118",
            [](MutableRoot& r) { r.write("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/device", "0x2b85\n"); });
    return out;
}

const kb::Kb& kb_() {
    static const kb::Kb kb = kb::Kb::builtin();
    return kb;
}

/// `check --root R --json`: the snapshot and its findings.
json check_json(const Machine& m) {
    auto run = run_cudoctor({"check", "--root", m.root, "--json"});
    EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 1) << m.name << ": " << run.describe() << "\n" << run.err;
    auto j = json::parse(run.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << m.name << ": " << run.out;
    return j;
}

/// `plan --root R --fresh --json ARGS`; nullopt when the plan cannot be made for this machine
/// (no GPU to plan for: exit 2).
std::optional<json> plan_json(const Machine& m, const std::vector<std::string>& args) {
    std::vector<std::string> all = {"plan", "--root", m.root, "--fresh", "--json"};
    all.insert(all.end(), args.begin(), args.end());
    auto run = run_cudoctor(all);
    if (run.exit_code == 2) return std::nullopt;
    EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 1) << m.name << ": " << run.describe() << "\n" << run.err;
    auto j = json::parse(run.out, nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    return j;
}

const json* step(const json& plan, const std::string& layer) {
    for (const auto& s : plan["steps"])
        if (s["layer"] == layer) return &s;
    return nullptr;
}

std::vector<std::string> step_commands(const json& s) { return s["commands"].get<std::vector<std::string>>(); }

/// Which layer a fix block installs, judged by the commands the recipe writes for each.
std::string installed_layer(const std::string& fix) {
    static const std::regex driver(
        R"(install -y (linux-headers-\$\(uname -r\) )?(nvidia-driver|cuda-drivers|nvidia-open)|sh \S+ --silent --driver|# install the NVIDIA driver branch)");
    static const std::regex toolkit(R"(--toolkitpath=|apt-get install -y cuda-toolkit-)");
    static const std::regex cudnn(R"(apt-get install -y '?libcudnn|cudnn-linux-\S+-archive)");
    if (std::regex_search(fix, driver)) return "driver";
    if (std::regex_search(fix, toolkit)) return "toolkit";
    if (std::regex_search(fix, cudnn)) return "cudnn";
    return "";
}

/// The newest CUDA release whose minimum Linux driver is of branch `branch` or older: a plan for
/// it installs that branch (or the GPU's own newer one).
std::optional<Version> cuda_for_branch(int branch) {
    std::optional<Version> best;
    for (const auto& r : kb_().toolkit_releases())
        if (r.min_linux_driver && r.min_linux_driver->major() <= branch && (!best || r.toolkit > *best)) best = r.toolkit;
    return best;
}

TEST(OneVoice, CheckFixesAndPlanStepsInstallWithTheSameCommands) {
    int compared_check = 0, compared_plan = 0, compared_cudnn = 0;
    std::set<std::string> layers_from_check;
    for (const auto& m : machines()) {
        SCOPED_TRACE(m.name);
        const json check = check_json(m);
        auto snap = snapshot::from_json_text(check.dump());
        ASSERT_TRUE(snap) << snap.error().message;
        std::cout << "== " << m.name << " (" << recipe::distro_of(*snap).label() << ")\n";

        // 1. Each install block of check's fixes against the plan step for the same version.
        for (const auto& f : check["findings"]) {
            const std::string fix = f.value("fix", "");
            const std::string layer = installed_layer(fix);
            // check's cuDNN fixes keep the release a copy has (a program linked to libcudnn.so.8 needs
            // cuDNN 8), plan picks the newest: cudnn_rules_test holds them to recipe::cudnn_install.
            if (layer.empty() || layer == "cudnn") continue;
            std::vector<std::string> args = {"--need", "opencv"};
            std::smatch hit;
            if (layer == "driver") {
                static const std::regex branch_in(R"((?:nvidia-driver|cuda-drivers|nvidia-open)-(\d+)|branch (\d+))");
                int branch = kb_().newest_driver_branch().value_or(580);
                if (std::regex_search(fix, hit, branch_in)) {
                    branch = std::stoi(hit[1].matched ? hit[1].str() : hit[2].str());
                } else if (text::contains(fix, "install -y linux-headers-$(uname -r) nvidia-driver firmware-misc-nonfree")) {
                    const auto release = kb_().distro_release(snap->platform.os_id, snap->platform.os_version);  // Debian's own branch
                    ASSERT_TRUE(release && release->distro_driver_branch) << fix;
                    branch = *release->distro_driver_branch;
                }
                if (auto cuda = cuda_for_branch(branch)) args.insert(args.end(), {"--cuda", cuda->truncated(2).str()});
            } else if (layer == "toolkit") {
                static const std::regex dir_in(R"(/usr/local/cuda-(\d+\.\d+))");
                ASSERT_TRUE(std::regex_search(fix, hit, dir_in)) << fix;
                args.insert(args.end(), {"--cuda", hit[1].str()});
            }
            const auto plan = plan_json(m, args);
            ASSERT_TRUE(plan) << "check prints an install fix, but plan has no plan for this machine";
            const json* s = step(*plan, layer);
            ASSERT_NE(s, nullptr) << "plan has no " << layer << " step; check's " << f["id"] << " fix:\n" << fix;
            std::cout << "  " << layer << ": check (" << f["id"].get<std::string>() << ") and plan " << joined(args) << ":\n"
                      << shown(lines_of(fix));
            EXPECT_EQ(lines_of(fix), step_commands(*s)) << "plan's step:\n" << shown(step_commands(*s));
            layers_from_check.insert(layer);
            ++compared_check;
        }

        // 2. plan --fresh's steps against check's fix builders on the same snapshot: the newest set,
        //    and CUDA 12.4 (a release with cuDNN builds in the KB, so there is a cuDNN step).
        for (const std::vector<std::string>& args :
             {std::vector<std::string>{"--need", "opencv"}, std::vector<std::string>{"--need", "opencv", "--cuda", "12.4"}}) {
            const auto plan = plan_json(m, args);
            if (!plan) {
                std::cout << "  (no plan: no GPU to plan for)\n";
                break;
            }
            std::cout << "  plan " << joined(args) << ":\n";
            const auto& v = (*plan)["versions"];
            if (const json* s = step(*plan, "driver")) {
                const auto fix = lines_of(recipe::driver_fix(*snap, kb_(), v["driver_branch"].get<int>()));
                std::cout << "  driver: plan and recipe::driver_fix\n" << shown(fix);
                EXPECT_EQ(fix, step_commands(*s));
                ++compared_plan;
            }
            if (const json* s = step(*plan, "toolkit")) {
                const auto release = Version::parse(v["toolkit"].get<std::string>());
                ASSERT_TRUE(release);
                EXPECT_EQ(v["toolkit_path"], recipe::toolkit_dir(*release));
                const auto fix = lines_of(recipe::toolkit_fix(*snap, *release, kb_()));
                std::cout << "  toolkit: plan and recipe::toolkit_fix\n" << shown(fix);
                EXPECT_EQ(fix, step_commands(*s));
                ++compared_plan;
            }
            if (const json* s = step(*plan, "cudnn")) {
                const auto cudnn = Version::parse(v["cudnn"].get<std::string>());
                const auto cuda = Version::parse(v["toolkit"].get<std::string>());
                ASSERT_TRUE(cudnn && cuda);
                const auto install =
                    recipe::cudnn_install(recipe::distro_of(*snap), *cudnn, cuda->truncated(2), v["toolkit_path"], false, kb_()).commands;
                std::cout << "  cudnn: plan and recipe::cudnn_install\n" << shown(install);
                EXPECT_EQ(install, step_commands(*s));
                ++compared_plan;
                ++compared_cudnn;
            }
        }
    }
    // The comparisons are not vacuous: check's fixes install a driver and a toolkit somewhere in
    // the set, and plan's steps were compared on most machines.
    EXPECT_TRUE(layers_from_check.contains("driver"));
    EXPECT_TRUE(layers_from_check.contains("toolkit"));
    EXPECT_GE(compared_check, 4);
    EXPECT_GE(compared_plan, 24);
    EXPECT_GE(compared_cudnn, 6);
}

}  // namespace
}  // namespace cudoctor::test
