// What a framework build can run without its binaries (recipe::gpu_fit), and that check's
// framework-gpu-arch-unsupported and plan's torch candidates give the same verdict: both ask
// gpu_fit. The KB rows are pinned with --kb tables where the verdict depends on them, so these
// tests do not change when pytorch_cuda.tsv gains architecture lists.
#include <gtest/gtest.h>

#include <optional>

#include <algorithm>

#include "kb/kb.hpp"
#include "recipe/build_targets.hpp"
#include "recipe/candidates.hpp"
#include "recipe/derive.hpp"
#include "recipe/request.hpp"
#include "recipe/target.hpp"
#include "rules/rules.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::recipe::torch_build_targets {
namespace {

const kb::Kb& builtin() { return kb::Kb::builtin(); }

BuildTargets built_with(const std::string& cuda, std::vector<std::string> sass = {}, std::optional<std::string> ptx = {}) {
    return {*Version::parse(cuda), std::move(sass), std::move(ptx)};
}

const std::vector<std::string> kSm50To90 = {"5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"};

TEST(TorchGpuFit, NoListNewerGpuRunsOnlyThroughPtx) {
    // CUDA 12.4 cannot compile sm_120 (first toolkit 12.8): only PTX could reach an RTX 5090.
    const auto fit = gpu_fit(built_with("12.4"), "12.0", "Blackwell", builtin());
    EXPECT_EQ(fit.fit, Fit::needs_ptx);
    EXPECT_EQ(fit.reason,
              "is built with CUDA 12.4, which cannot target sm_120 (Blackwell; needs CUDA ≥ 12.8): it runs there only through PTX JIT "
              "compilation if the build ships PTX, and its architecture list is not in the knowledge base");
}

TEST(TorchGpuFit, NoListOlderGpuCannotRunWhateverPtxItShips) {
    // CUDA 12.1 dropped Kepler, and PTX JIT-compiles only upwards: proven, list or not.
    const auto fit = gpu_fit(built_with("12.1"), "3.5", "Kepler", builtin());
    EXPECT_EQ(fit.fit, Fit::cannot_run);
    EXPECT_NE(fit.reason.find("dropped sm_35"), std::string::npos) << fit.reason;
}

TEST(TorchGpuFit, NoListSameMajorLowerMinorIsNotRefused) {
    // CUDA 11.7 cannot compile sm_89, but sm_86 SASS (CUDA ≥ 11.1) runs on 8.9: nothing is proven.
    EXPECT_EQ(gpu_fit(built_with("11.7"), "8.9", "Ada Lovelace", builtin()).fit, Fit::unknown);
    EXPECT_EQ(gpu_fit(built_with("12.8"), "12.0", "Blackwell", builtin()).fit, Fit::unknown);
}

TEST(TorchGpuFit, AKnownListDecides) {
    EXPECT_EQ(gpu_fit(built_with("12.4", kSm50To90), "12.0", "Blackwell", builtin()).fit, Fit::cannot_run);
    EXPECT_EQ(gpu_fit(built_with("12.4", kSm50To90, "9.0"), "12.0", "Blackwell", builtin()).fit, Fit::runs);
    EXPECT_EQ(gpu_fit(built_with("12.4", kSm50To90), "8.9", "Ada Lovelace", builtin()).fit, Fit::runs);
    EXPECT_EQ(gpu_fit(built_with("12.8", {"7.5", "8.0", "8.6", "9.0", "10.0", "12.0"}), "6.1", "Pascal", builtin()).fit, Fit::cannot_run);
    EXPECT_EQ(gpu_fit(built_with("12.4", kSm50To90), "", "", builtin()).fit, Fit::unknown);
}

TEST(TensorflowExtra, AndCudaStartsAt214) {
    EXPECT_FALSE(tensorflow_has_and_cuda(*Version::parse("2.13.0")));
    EXPECT_FALSE(tensorflow_has_and_cuda(*Version::parse("2.13.1")));
    EXPECT_TRUE(tensorflow_has_and_cuda(*Version::parse("2.14.0")));
}

// ---- check and plan on one machine -------------------------------------------------------------

const char* kTorchHeader =
    "# source: a test\n"
    "torch\tvariant\tcuda\tstatus\tbundled_cudnn\tcuda_archs\tcuda_archs_aarch64\tpypi_default\tpython\tcxx_standard\trelease_date\t"
    "confidence\tnote\n";

/// The built-in KB with pytorch_cuda.tsv replaced by torch 2.5's cu124 row (with `archs`) and the
/// 2.7 cu128 row with its list (so plan has a release to suggest).
kb::Kb kb_with_torch25(const test::TempDir& dir, const std::string& archs) {
    dir.write("pytorch_cuda.tsv",
              std::string(kTorchHeader) + "2.5\tcu124\t12.4\tstable\t9.1.0.70\t" + archs +
                  "\t\tyes\t>=3.9\tC++17\tOct 2024\thigh\t\n"
                  "2.7\tcu128\t12.8\texperimental\t9.7.1.26\t7.5;8.0;8.6;9.0;10.0;12.0\t\t\t>=3.9\tC++17\tApr 2025\thigh\t\n");
    auto kb = kb::Kb::load(dir.str());
    EXPECT_TRUE(kb) << (kb ? "" : kb.error().message);
    return *kb;
}

snapshot::Snapshot rtx5090_with_torch(const kb::Kb& kb, const std::string& version, const std::string& cuda) {
    snapshot::Snapshot s;
    s.root = "/";
    auto g = resolve_gpu("RTX 5090", kb);
    EXPECT_TRUE(g);
    snapshot::Gpu gpu;
    gpu.bus_id = "0000:01:00.0";
    gpu.pci_device_id = "10de:2b85";
    gpu.pci_class = "0x030000";
    gpu.name = g->name;
    gpu.architecture = g->architecture;
    gpu.compute_capability = g->compute_capability;
    gpu.bound_driver = "nvidia";
    s.gpus.push_back(gpu);
    s.driver.kernel_module_version = "570.133.07";
    s.driver.user_space_versions = {"570.133.07"};
    s.driver.loaded_modules = {"nvidia", "nvidia_uvm"};
    s.driver.max_cuda = "12.8";
    s.platform.os_id = "ubuntu";
    s.platform.os_version = "24.04";
    s.platform.arch = "x86_64";
    snapshot::Framework fw;
    fw.name = "torch";
    fw.version = version;
    fw.cuda = cuda;
    fw.python = "/home/erin/venv/lib/python3.12/site-packages";
    s.frameworks.push_back(fw);  // no binary_archs: the wheel's .so files are not there
    return s;
}

/// A copy: the findings are usually a temporary (rules::evaluate(...)), so a pointer into them
/// would dangle (AddressSanitizer: heap-use-after-free).
std::optional<snapshot::Finding> arch_finding(const std::vector<snapshot::Finding>& fs) {
    auto it = std::find_if(fs.begin(), fs.end(), [](const auto& f) { return f.id == "framework-gpu-arch-unsupported"; });
    if (it == fs.end()) return std::nullopt;
    return *it;
}

Recipe plan_torch(const snapshot::Snapshot& s, const std::string& framework, const kb::Kb& kb, const std::string& cuda = {}) {
    Request r;
    r.framework = *parse_framework(framework);
    if (!cuda.empty()) r.cuda = *Version::parse(cuda);
    auto target = make_target(s, r, kb);
    EXPECT_TRUE(target) << (target ? "" : target.error().message);
    auto plan = derive_plan(r, *target, kb);
    EXPECT_TRUE(plan) << (plan ? "" : plan.error().message);
    return *plan;
}

std::string rejection_of(const Recipe& p, const std::string& option) {
    for (const auto& r : p.rejected)
        if (r.option == option) return r.reason;
    return "(not rejected)";
}

TEST(TorchArchCheckAndPlan, ListWithoutPtxIsAnErrorAndPlanRefusesTheWheel) {
    test::TempDir dir;
    const auto kb = kb_with_torch25(dir, "5.0;6.0;7.0;7.5;8.0;8.6;9.0");
    const auto s = rtx5090_with_torch(kb, "2.5.1+cu124", "12.4");
    const auto f = arch_finding(rules::evaluate(s, kb));
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->severity, snapshot::Severity::error);
    EXPECT_NE(f->why.find("sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"), std::string::npos) << f->why;
    EXPECT_NE(f->fix.find("whl/cu128"), std::string::npos) << f->fix;
    const auto p = plan_torch(s, "torch==2.5", kb);
    ASSERT_TRUE(p.refused);
    EXPECT_EQ(rejection_of(p, "cu124"), "cu124 wheels lack sm_120 (they carry sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90)");
    EXPECT_EQ(p.refused->nearest, "torch 2.7 (cu128)");
}

TEST(TorchArchCheckAndPlan, ListWithPtxRunsForBoth) {
    test::TempDir dir;
    const auto kb = kb_with_torch25(dir, "5.0;6.0;7.0;7.5;8.0;8.6;9.0+PTX");
    const auto s = rtx5090_with_torch(kb, "2.5.1+cu124", "12.4");
    EXPECT_FALSE(arch_finding(rules::evaluate(s, kb)).has_value());
    const auto p = plan_torch(s, "torch==2.5", kb);
    EXPECT_FALSE(p.refused);
    EXPECT_EQ(p.framework_variant, "cu124");
}

TEST(TorchArchCheckAndPlan, UnknownListSaysLessAndTheSameThingTwice) {
    // Without a list, CUDA 12.4 proves there is no sm_120 SASS, but not that no PTX is shipped:
    // check notes it (no error), plan does not choose the wheel, and both give the same reason.
    test::TempDir dir;
    const auto kb = kb_with_torch25(dir, "");
    const auto s = rtx5090_with_torch(kb, "2.5.1+cu124", "12.4");
    const auto f = arch_finding(rules::evaluate(s, kb));
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->severity, snapshot::Severity::info);
    const auto fit = gpu_fit(built_with("12.4"), "12.0", "Blackwell", kb);
    EXPECT_NE(f->why.find(fit.reason), std::string::npos) << f->why;
    const auto p = plan_torch(s, "torch==2.5", kb);
    ASSERT_TRUE(p.refused);
    EXPECT_EQ(rejection_of(p, "cu124"), "torch 2.5 (cu124) " + fit.reason);
}

TEST(TorchArchCheckAndPlan, TorchMissingFromTheKbIsJudgedByItsCuda) {
    // A release the tables do not know (a nightly): its CUDA still proves what it cannot hold.
    // 1.11 is older than every row of pytorch_cuda.tsv.
    const auto s = rtx5090_with_torch(builtin(), "1.11.0+cu113", "11.3");
    const auto f = arch_finding(rules::evaluate(s, builtin()));
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->severity, snapshot::Severity::info);
    EXPECT_NE(f->why.find("CUDA 11.3, which cannot target sm_120"), std::string::npos) << f->why;
}

// Every torch wheel of the built-in KB on several GPUs: the rule fires exactly where plan refuses
// the wheel for the GPU (error where the list proves it, a note where only PTX could help).
TEST(TorchArchCheckAndPlan, RuleAndPlanAgreeOnEveryWheel) {
    const auto& kb = builtin();
    for (const std::string gpu_name : {"RTX 5090", "RTX 4060 Ti", "GTX 1080 Ti", "A100"}) {
        for (const auto& w : kb.torch_table()) {
            auto s = rtx5090_with_torch(kb, w.torch.str() + ".0+" + w.variant, w.cuda.str());
            auto g = resolve_gpu(gpu_name, kb);
            ASSERT_TRUE(g);
            s.gpus[0].name = g->name;
            s.gpus[0].architecture = g->architecture;
            s.gpus[0].compute_capability = g->compute_capability;
            s.driver = {};  // no driver: plan judges the GPU alone
            Request r;
            r.framework = *parse_framework("torch==" + w.torch.str());
            auto target = make_target(s, r, kb);
            ASSERT_TRUE(target);
            auto cands = detail::candidates_for(r, *target, kb);
            ASSERT_TRUE(cands);
            const auto c = std::find_if(cands->begin(), cands->end(), [&](const auto& c) { return c.variant == w.variant; });
            ASSERT_NE(c, cands->end());
            const bool refused_for_gpu = c->rejected && c->rejected->find("driver") == std::string::npos;
            const auto f = arch_finding(rules::evaluate(s, kb));
            EXPECT_EQ(refused_for_gpu, f.has_value()) << gpu_name << " torch " << w.torch.str() << " " << w.variant << ": plan says "
                                                      << c->rejected.value_or("fits") << "; check says " << (f ? f->why : "nothing");
            if (f && refused_for_gpu) {
                const bool proven = gpu_fit(torch_targets(w), g->compute_capability, g->architecture, kb).fit == Fit::cannot_run;
                EXPECT_EQ(f->severity, proven ? snapshot::Severity::error : snapshot::Severity::info) << f->why;
            }
        }
    }
}

// ---- plan: no claim without a list; the true reason with --cuda ------------------------------------

TEST(TorchPlanClaims, KernelsAreClaimedOnlyWhereTheListProvesThem) {
    test::TempDir with_list;  // 2.7 cu128 carries sm_120 here
    const auto kb = kb_with_torch25(with_list, "");
    const auto p = plan_torch(rtx5090_with_torch(kb, "2.5.1+cu124", "12.4"), "torch==2.7", kb);
    ASSERT_FALSE(p.refused);
    ASSERT_FALSE(p.chosen.empty());
    EXPECT_NE(p.chosen[0].reason.find("it carries kernels for GeForce RTX 5090 (sm_120)"), std::string::npos) << p.chosen[0].reason;

    test::TempDir no_list;
    no_list.write("pytorch_cuda.tsv",
                  std::string(kTorchHeader) + "2.7\tcu128\t12.8\texperimental\t9.7.1.26\t\t\t\t>=3.9\tC++17\tApr 2025\thigh\t\n");
    const auto kb2 = kb::Kb::load(no_list.str());
    ASSERT_TRUE(kb2);
    const auto q = plan_torch(rtx5090_with_torch(*kb2, "2.5.1+cu124", "12.4"), "torch==2.7", *kb2);
    ASSERT_FALSE(q.refused);
    ASSERT_FALSE(q.chosen.empty());
    EXPECT_EQ(q.chosen[0].reason.find("carries kernels"), std::string::npos) << q.chosen[0].reason;
    EXPECT_NE(q.chosen[0].reason.find(
                  "its architecture list is not in the knowledge base: kernels for GeForce RTX 5090 (sm_120) are not proven"),
              std::string::npos)
        << q.chosen[0].reason;
}

TEST(TorchPlanClaims, CudaAskedForThatTheReleaseLacksIsTheReason) {
    auto s = rtx5090_with_torch(builtin(), "2.4.0+cu121", "12.1");
    auto g = resolve_gpu("RTX 4060 Ti", builtin());
    s.gpus[0].name = g->name;
    s.gpus[0].architecture = g->architecture;
    s.gpus[0].compute_capability = g->compute_capability;
    const auto p = plan_torch(s, "torch==2.4", builtin(), "12.6");
    ASSERT_TRUE(p.refused);
    EXPECT_EQ(p.refused->reason, "torch 2.4 has no CUDA 12.6 build (it has cu118, cu121, cu124)");
    EXPECT_EQ(p.refused->nearest, "torch 2.6 (cu126)");
}

}  // namespace
}  // namespace cudoctor::recipe::torch_build_targets
