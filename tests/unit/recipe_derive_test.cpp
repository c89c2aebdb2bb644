// `cudoctor plan`'s derivation over real combinations of GPU, framework and OS (facts from the
// embedded KB), and the consistency of every plan with check: the machine as a plan leaves it
// (recipe::projected_snapshot) must give rules::evaluate no error.
#include <gtest/gtest.h>

#include <regex>

#include "kb/kb.hpp"
#include "recipe/derive.hpp"
#include "recipe/projected.hpp"
#include "recipe/request.hpp"
#include "recipe/target.hpp"
#include "rules/rules.hpp"

namespace cudoctor::recipe {
namespace {

const kb::Kb& builtin_kb() { return kb::Kb::builtin(); }

/// A machine as the probes would describe it.
struct Machine {
    std::string gpu;  ///< gpus.tsv name ("" = no GPU on the PCI bus)
    std::string os = "ubuntu";
    std::string version = "22.04";
    std::string driver;  ///< "" = none
    bool wsl = false;
    std::string virtualization{};
    std::string secure_boot = "disabled";
    bool nouveau = false;
};

snapshot::Snapshot snapshot_of(const Machine& m) {
    snapshot::Snapshot s;
    s.root = "/";
    if (!m.gpu.empty()) {
        auto g = resolve_gpu(m.gpu, builtin_kb());
        EXPECT_TRUE(g) << m.gpu;
        snapshot::Gpu gpu;
        gpu.bus_id = "0000:01:00.0";
        gpu.pci_device_id = "10de:0000";
        gpu.pci_class = g->datacenter ? "0x030200" : "0x030000";
        gpu.name = g->name;
        gpu.architecture = g->architecture;
        gpu.compute_capability = g->compute_capability;
        gpu.bound_driver = m.nouveau ? "nouveau" : (m.driver.empty() ? "" : "nvidia");
        s.gpus.push_back(gpu);
    }
    if (!m.driver.empty()) {
        s.driver.kernel_module_version = m.driver;
        s.driver.user_space_versions = {m.driver};
        s.driver.loaded_modules = {"nvidia", "nvidia_uvm"};
        if (auto max = builtin_kb().max_cuda_for(*Version::parse(m.driver))) s.driver.max_cuda = max->str();
    }
    if (m.nouveau) s.driver.loaded_modules.emplace_back("nouveau");
    s.platform.os_id = m.os;
    s.platform.os_version = m.version;
    s.platform.arch = "x86_64";
    s.platform.gcc_default = builtin_kb().default_gcc_of(m.os, m.version);
    if (s.platform.gcc_default) s.platform.gcc_installed = {*s.platform.gcc_default};
    s.platform.c_compiler = "/usr/bin/cc";
    s.platform.wsl = m.wsl;
    s.platform.virtualization = m.virtualization;
    s.platform.secure_boot = m.secure_boot;
    return s;
}

Request request(const std::string& framework, const std::string& cuda = {}, const std::vector<std::string>& needs = {}) {
    Request r;
    if (!framework.empty()) r.framework = *parse_framework(framework);
    if (!cuda.empty()) r.cuda = *Version::parse(cuda);
    for (const auto& n : needs) {
        r.need_nvcc |= n == "nvcc";
        r.need_cudnn |= n == "cudnn";
        r.need_opencv |= n == "opencv";
    }
    return r;
}

Recipe plan_for(const snapshot::Snapshot& snap, const Request& r) {
    auto target = make_target(snap, r, builtin_kb());
    EXPECT_TRUE(target) << (target ? "" : target.error().message);
    auto plan = derive_plan(r, *target, builtin_kb());
    EXPECT_TRUE(plan) << (plan ? "" : plan.error().message);
    return *plan;
}

std::vector<std::string> step_layers(const Recipe& p) {
    std::vector<std::string> out;
    for (const auto& s : p.steps) out.push_back(s.layer);
    return out;
}

std::string all_commands(const Recipe& p) {
    std::string out;
    for (const auto& s : p.steps)
        for (const auto& c : s.commands) out += c + "\n";
    return out;
}

const Step* step(const Recipe& p, const std::string& layer) {
    for (const auto& s : p.steps)
        if (s.layer == layer) return &s;
    return nullptr;
}

/// check's errors on the machine as the plan leaves it.
std::vector<std::string> errors_after(const snapshot::Snapshot& before, const Recipe& p) {
    std::vector<std::string> out;
    for (const auto& f : rules::evaluate(projected_snapshot(before, p, builtin_kb()), builtin_kb()))
        if (f.severity == snapshot::Severity::error) out.push_back(f.id + ": " + f.title);
    return out;
}

/// What no plan may ever do: a driver meta-package, or a driver step where the GPU's driver is not ours.
void expect_plan_invariants(const Recipe& p, const Machine& m) {
    const std::string cmds = all_commands(p);
    static const std::regex meta(R"(apt-get install[^\n]*\s'?cuda(-[0-9]+-[0-9]+)?'?(\s|$))");
    EXPECT_FALSE(std::regex_search(cmds, meta)) << "a cuda / cuda-X-Y meta-package pulls a driver:\n" << cmds;
    EXPECT_EQ(cmds.find("cuda-drivers "), std::string::npos) << cmds;
    if (m.wsl || (!m.virtualization.empty() && m.gpu.empty())) {
        EXPECT_EQ(step(p, "driver"), nullptr) << "no driver step inside WSL2 or a VM without the GPU";
        EXPECT_EQ(cmds.find("nvidia-driver"), std::string::npos) << cmds;
    }
    for (const auto& s : p.steps) {
        EXPECT_FALSE(s.commands.empty()) << s.title;
        EXPECT_FALSE(s.checks.empty()) << "every step says how to check it: " << s.title;
    }
}

struct Case {
    std::string name;
    Machine machine;
    std::string framework;
    std::string cuda;
    std::vector<std::string> needs;
    std::string gpu_override;  ///< --gpu (the machine shows none: WSL2, VM)
    // expectations
    std::vector<std::string> steps;  ///< layers in order; empty with refused
    std::string cuda_chosen;         ///< "11.8"
    std::string variant;             ///< "cu118"
    std::string refused_contains;    ///< non-empty: the plan is refused with this in the reason
    std::string nearest;             ///< the nearest working release named
    std::vector<std::string> commands_contain;
};

class PlanCombinations : public ::testing::TestWithParam<Case> {};

TEST_P(PlanCombinations, DerivesTheSetAndCheckFindsNoErrorAfterIt) {
    const Case& c = GetParam();
    auto snap = snapshot_of(c.machine);
    auto r = request(c.framework, c.cuda, c.needs);
    if (!c.gpu_override.empty()) r.gpu = c.gpu_override;
    const Recipe p = plan_for(snap, r);
    if (!c.refused_contains.empty()) {
        ASSERT_TRUE(p.refused) << "expected a refusal";
        EXPECT_NE(p.refused->reason.find(c.refused_contains), std::string::npos) << p.refused->reason;
        EXPECT_EQ(p.refused->nearest, c.nearest);
        EXPECT_TRUE(p.steps.empty());
        return;
    }
    ASSERT_FALSE(p.refused) << p.refused->reason;
    EXPECT_EQ(step_layers(p), c.steps);
    ASSERT_TRUE(p.cuda);
    EXPECT_EQ(p.cuda->str(), c.cuda_chosen);
    if (!c.variant.empty()) {
        EXPECT_EQ(p.framework_variant, c.variant);
    }
    const std::string cmds = all_commands(p);
    for (const auto& want : c.commands_contain) EXPECT_NE(cmds.find(want), std::string::npos) << want << " not in:\n" << cmds;
    expect_plan_invariants(p, c.machine);
    EXPECT_EQ(errors_after(snap, p), std::vector<std::string>{}) << "check faults the machine the plan leaves";
}

const Machine kRtx4060TiJammy{"RTX 4060 Ti", "ubuntu", "22.04", "550.54.15"};
const Machine kRtx4060TiJammyNoDriver{"RTX 4060 Ti", "ubuntu", "22.04", ""};
const Machine kRtx5090Noble{"RTX 5090", "ubuntu", "24.04", ""};
const Machine kGtx1080TiJammy{"GTX 1080 Ti", "ubuntu", "22.04", ""};
const Machine kWsl{"", "ubuntu", "22.04", "", true};

// Not clang-formatted: one combination per case, as the table reads.
// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Real, PlanCombinations,
    ::testing::Values(
        Case{"Rtx4060TiTorch21Jammy", kRtx4060TiJammy, "torch==2.1", "", {}, "", {"framework"}, "11.8", "cu118", "", "",
             {"--index-url https://download.pytorch.org/whl/cu118", "torch==2.1.*"}},
        Case{"DriverNewEnoughNoDriverStep", kRtx4060TiJammy, "torch==2.4", "", {}, "", {"framework"}, "12.1", "cu121", "", "", {}},
        Case{"Rtx4060TiTorch24NoDriver", kRtx4060TiJammyNoDriver, "torch==2.4", "", {}, "", {"driver", "framework"}, "12.1", "cu121", "", "",
             {"nvidia-driver-580-open", "sudo reboot"}},
        Case{"Rtx5090Torch20Refused", kRtx5090Noble, "torch==2.0", "", {}, "", {}, "", "", "sm_120", "torch 2.7 (cu128)", {}},
        Case{"Rtx5090Torch28", kRtx5090Noble, "torch==2.8", "", {}, "", {"driver", "framework"}, "12.8", "cu128", "", "",
             {"nvidia-driver-580-open"}},
        Case{"Gtx1080TiCuda13Refused", kGtx1080TiJammy, "", "13.0", {}, "", {}, "", "", "dropped sm_61", "CUDA 12.9", {}},
        Case{"Gtx1080TiTorch28KeepsSm61", kGtx1080TiJammy, "torch==2.8", "", {}, "", {"driver", "framework"}, "12.6", "cu126", "", "",
             {"nvidia-driver-580\n"}},
        Case{"TeslaK80Torch24RefusedByDriverBranch", Machine{"Tesla K80", "ubuntu", "20.04", ""}, "torch==2.4", "", {}, "", {}, "", "",
             "torch 2.4", "torch 1.12 (cu102)", {}},
        Case{"Noble118NeedsGcc11", Machine{"RTX 4060 Ti", "ubuntu", "24.04", ""}, "", "11.8", {}, "", {"driver", "gcc", "toolkit"}, "11.8",
             "", "", "", {"gcc-11 g++-11", "cuda_11.8.0_520.61.05_linux.run --silent --toolkit"}},
        Case{"WslNoDriverStepWslRepository", kWsl, "torch==2.4", "", {"nvcc"}, "RTX 4060 Ti", {"toolkit", "framework"}, "12.1", "cu121", "",
             "", {"repos/wsl-ubuntu/x86_64/cuda-keyring_1.1-1_all.deb", "cuda-toolkit-12-1"}},
        Case{"Tensorflow215ExactCudaCudnn", kRtx4060TiJammy, "tensorflow==2.15", "", {"cudnn"}, "", {"cudnn", "framework"}, "12.2",
             "and-cuda", "", "", {"grep -m1 -E '^8\\.9\\.7\\.[0-9.]*-1\\+cuda12\\.'", "\"libcudnn8=$cudnn8\"", "tensorflow[and-cuda]==2.15.*"}},
        Case{"Tensorflow212LoadsSystemCuda", kRtx4060TiJammy, "tensorflow==2.12", "", {}, "", {"toolkit", "cudnn", "framework"}, "11.8",
             "system", "", "", {"cuda-toolkit-11-8", "grep -m1 -E '^8\\.6\\.0\\.[0-9.]*-1\\+cuda11\\.'"}},
        Case{"Jax0430KeepsDriver", Machine{"RTX 4060 Ti", "ubuntu", "22.04", "535.104.05"}, "jax==0.4.30", "", {}, "", {"framework"}, "12.3",
             "cuda12", "", "", {"jax[cuda12]==0.4.30"}},
        Case{"DebianOwnDriver", Machine{"RTX 4060 Ti", "debian", "12", ""}, "torch==2.4", "", {}, "", {"driver", "framework"}, "12.1", "cu121",
             "", "", {"nvidia-driver firmware-misc-nonfree"}},
        Case{"SecureBootNouveauDebianRepo",
             Machine{"RTX 5090", "debian", "12", "", false, "", "enabled", true}, "torch==2.8", "", {}, "", {"driver", "framework"}, "12.8",
             "cu128", "", "", {"blacklist nouveau", "mokutil --import", "nvidia-open-580", "repos/debian12/x86_64/cuda-keyring"}},
        Case{"OpencvNeedsToolkitAndCudnn", kRtx4060TiJammy, "", "12.4", {"opencv"}, "", {"toolkit", "cudnn"}, "12.4", "", "", "",
             {"cuda-toolkit-12-4", "libcudnn9-cuda-12="}},
        Case{"VmWithoutGpuRefused", Machine{"", "ubuntu", "22.04", "", false, "vmware"}, "torch==2.4", "", {}, "", {}, "", "",
             "virtual machine", "", {}}),
    [](const auto& info) { return info.param.name; });
// clang-format on

TEST(PlanCombinations, OfflineUsesRunfilesAndTheTarArchive) {
    Request r = request("", "12.4", {"cudnn"});
    r.offline = true;
    const Recipe p = plan_for(snapshot_of(kRtx4060TiJammyNoDriver), r);
    ASSERT_FALSE(p.refused);
    const std::string cmds = all_commands(p);
    // The runfile's 550 driver: below R560 a GeForce card keeps the proprietary modules (the open
    // ones are the default from R560, driver_kernel_modules.tsv), whatever branch the GPU could use.
    EXPECT_NE(cmds.find("sudo sh cuda_12.4.1_550.54.15_linux.run --silent --driver\n"), std::string::npos) << cmds;
    EXPECT_EQ(p.steps.front().title, "NVIDIA driver 550.54.15 (first, and clean)");
    EXPECT_NE(cmds.find("--silent --toolkit"), std::string::npos) << cmds;
    EXPECT_NE(cmds.find("sudo cp -P cudnn-linux-x86_64-9."), std::string::npos) << cmds;
    EXPECT_EQ(cmds.find("wget"), std::string::npos) << "offline: nothing is downloaded\n" << cmds;
    EXPECT_EQ(errors_after(snapshot_of(kRtx4060TiJammyNoDriver), p), std::vector<std::string>{});
}

TEST(PlanCombinations, RejectedAlternativesSayWhy) {
    const Recipe p = plan_for(snapshot_of(kRtx5090Noble), request("torch==2.0"));
    ASSERT_TRUE(p.refused);
    ASSERT_EQ(p.rejected.size(), 2u);
    EXPECT_EQ(p.rejected[0].option, "cu117");
    // pytorch/builder's build_cuda.sh on release/2.0: SASS for 3.7 … 9.0, no PTX.
    EXPECT_EQ(p.rejected[1].reason, "cu118 wheels lack sm_120 (they carry sm_37 sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90)");
    const Recipe q = plan_for(snapshot_of(kGtx1080TiJammy), request("torch==2.8"));
    bool lacks = false;
    for (const auto& r : q.rejected) lacks |= r.option == "cu128" && r.reason.starts_with("cu128 wheels lack sm_61");
    EXPECT_TRUE(lacks);
}

TEST(PlanCombinations, KeepsAnInstalledToolkitAndDoesNotUpgradeAWorkingDriver) {
    auto snap = snapshot_of(kRtx4060TiJammy);
    snapshot::Toolkit tk;
    tk.version = "12.4.131";
    tk.path = "/usr/local/cuda-12.4";
    tk.install_method = snapshot::InstallMethod::deb;
    tk.has_nvcc = true;
    tk.is_default = tk.first_on_path = tk.on_path = true;
    tk.max_gcc = 13;
    snap.toolkits.push_back(tk);
    snap.environment.nvcc_on_path = {"/usr/local/cuda-12.4/bin/nvcc"};
    const Recipe p = plan_for(snap, request("torch==2.4", "", {"nvcc"}));
    ASSERT_FALSE(p.refused);
    EXPECT_EQ(step_layers(p), (std::vector<std::string>{"framework"}));
    bool kept_driver = false, kept_toolkit = false;
    for (const auto& k : p.kept) {
        kept_driver |= k.layer == "driver";
        kept_toolkit |= k.layer == "toolkit";
    }
    EXPECT_TRUE(kept_driver);
    EXPECT_TRUE(kept_toolkit);
}

TEST(PlanRequest, ParsesAndRejectsInput) {
    EXPECT_EQ(parse_framework("torch==2.4")->name, "torch");
    EXPECT_EQ(parse_framework("pytorch=2.4.1")->version.str(), "2.4.1");
    EXPECT_EQ(parse_framework("TF==2.15")->name, "tensorflow");
    EXPECT_TRUE(parse_framework("jax")->version.empty());
    EXPECT_EQ(parse_framework("caffe==1.0").error().message,
              "--framework 'caffe==1.0': expected torch==X.Y, tensorflow==X.Y or jax==X.Y.Z, or PEP 440 specifiers (torch>=2.3,<2.6)");
    EXPECT_EQ(parse_framework("torch==2.x").error().message, "--framework 'torch==2.x': '2.x' is not a version like 2.4 or 2.4.1");
    EXPECT_TRUE(parse_os("wsl-ubuntu-22.04", builtin_kb())->wsl);
    EXPECT_EQ(parse_os("ubuntu24.04", builtin_kb())->version, "24.04");
    EXPECT_EQ(parse_os("fedora-40", builtin_kb()).error().code, Errc::usage);
    EXPECT_EQ(resolve_gpu("RTX 4060 Ti", builtin_kb())->compute_capability, "8.9");
    EXPECT_EQ(resolve_gpu("sm_120", builtin_kb())->compute_capability, "12.0");
    EXPECT_EQ(resolve_gpu("rtx 5090", builtin_kb())->name, "GeForce RTX 5090");
    EXPECT_EQ(resolve_gpu("RTX 9999", builtin_kb()).error().code, Errc::usage);
    EXPECT_NE(resolve_gpu("RTX 40", builtin_kb()).error().message.find("matches several GPUs"), std::string::npos);
}

// PEP 440 specifiers, as pip reads them (https://peps.python.org/pep-0440/#version-specifiers).
TEST(PlanRequest, ParsesPep440Specifiers) {
    const auto range = parse_framework("torch>=2.3, <2.6");
    ASSERT_TRUE(range) << range.error().message;
    EXPECT_TRUE(range->version.empty());
    EXPECT_EQ(range->clause_text(), ">=2.3,<2.6");
    for (const char* in : {"2.3", "2.4", "2.5"}) EXPECT_TRUE(range->admits(*Version::parse(in))) << in;
    for (const char* in : {"2.2", "2.6", "2.10"}) EXPECT_FALSE(range->admits(*Version::parse(in))) << in;
    // The series 2.4 holds 2.4.1: >=2.4.1 admits it; <2.4 does not.
    EXPECT_TRUE(parse_framework("torch>=2.4.1")->admits(*Version::parse("2.4")));
    EXPECT_FALSE(parse_framework("torch<2.4")->admits(*Version::parse("2.4")));
    EXPECT_FALSE(parse_framework("torch!=2.4.*,>=2.4,<2.5")->admits(*Version::parse("2.4")));
    // ~=0.4.30 is >=0.4.30, ==0.4.*; ~=2.4 is >=2.4, ==2.*.
    const auto jax = parse_framework("jax~=0.4.30");
    ASSERT_TRUE(jax);
    EXPECT_TRUE(jax->admits(*Version::parse("0.4.30")));
    EXPECT_FALSE(jax->admits(*Version::parse("0.7.2")));
    EXPECT_FALSE(jax->admits(*Version::parse("0.4.29")));
    EXPECT_TRUE(parse_framework("torch~=2.4")->admits(*Version::parse("2.9")));
    EXPECT_FALSE(parse_framework("torch~=2.4")->admits(*Version::parse("3.0")));
    // One == keeps its old meaning: that series, in `version`.
    EXPECT_EQ(parse_framework("torch==2.4.*")->version.str(), "2.4");
    EXPECT_TRUE(parse_framework("torch==2.4.*")->clauses.empty());
    EXPECT_EQ(parse_framework("torch 2.4")->version.str(), "2.4");
    // Clear errors for what pip would refuse too.
    EXPECT_EQ(parse_framework("torch>=2.*").error().message, "--framework 'torch>=2.*': '.*' goes only with == or != (PEP 440)");
    EXPECT_EQ(parse_framework("torch~=2").error().message, "--framework 'torch~=2': ~= needs at least two parts (~=2.4, not ~=2)");
    EXPECT_EQ(parse_framework("torch>=2.3,,<2.6").error().code, Errc::usage);
    EXPECT_EQ(parse_framework("torch===2.4").error().code, Errc::usage);
    EXPECT_EQ(parse_framework("torch>=2.3,2.6").error().message,
              "--framework 'torch>=2.3,2.6': '2.6' is not a version clause like >=2.3, <2.6, ==2.4.*, ~=2.4.1");
    EXPECT_EQ(parse_framework("torch>=2.").error().code, Errc::usage);
}

TEST(PlanRequest, SpecifiersPickTheNewestAdmittedReleaseAndRideIntoPip) {
    auto snap = snapshot_of(kRtx4060TiJammy);
    const auto p = plan_for(snap, request("torch>=2.3,<2.6"));
    const auto* fw = step(p, "framework");
    ASSERT_NE(fw, nullptr);
    EXPECT_NE(fw->title.find("torch 2.5"), std::string::npos) << fw->title;
    EXPECT_NE(all_commands(p).find("'torch==2.5.*,>=2.3,<2.6' --index-url"), std::string::npos) << all_commands(p);

    auto r = request("torch>=9.0");
    auto target = make_target(snap, r, builtin_kb());
    ASSERT_TRUE(target);
    const auto none = derive_plan(r, *target, builtin_kb());
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().code, Errc::usage);
    EXPECT_NE(none.error().message.find("no torch release in the knowledge base satisfies >=9.0"), std::string::npos) << none.error().message;
}

TEST(PlanRequest, UnknownReleaseIsAUsageError) {
    auto snap = snapshot_of(kRtx4060TiJammy);
    auto r = request("torch==9.9");
    auto target = make_target(snap, r, builtin_kb());
    ASSERT_TRUE(target);
    auto p = derive_plan(r, *target, builtin_kb());
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().code, Errc::usage);
    EXPECT_NE(p.error().message.find("torch 9.9 is not in the knowledge base"), std::string::npos) << p.error().message;
}

}  // namespace
}  // namespace cudoctor::recipe

namespace cudoctor::recipe {
namespace {

TEST(PlanKbTables, JaxExtrasAndRepositoryCoverage) {
    const auto jax = kb::Kb::builtin().jax_builds(*Version::parse("0.4.30"));
    ASSERT_EQ(jax.size(), 1u);
    EXPECT_EQ(jax[0].extra, "cuda12");
    EXPECT_EQ(jax[0].cuda_built.str(), "12.3");
    EXPECT_EQ(jax[0].min_linux_driver->str(), "525.60.13");
    EXPECT_TRUE(kb::Kb::builtin().jax_builds(*Version::parse("0.4.29")).empty());
    const auto noble = kb::Kb::builtin().cuda_repository("ubuntu2404");
    ASSERT_TRUE(noble);
    EXPECT_FALSE(noble->publishes(*Version::parse("11.8")));
    EXPECT_TRUE(noble->publishes(*Version::parse("12.6.3")));
    const auto focal = kb::Kb::builtin().cuda_repository("ubuntu2004");
    EXPECT_FALSE(focal->publishes(*Version::parse("13.0")));
    EXPECT_FALSE(kb::Kb::builtin().cuda_repository("plan9"));
}

}  // namespace
}  // namespace cudoctor::recipe
