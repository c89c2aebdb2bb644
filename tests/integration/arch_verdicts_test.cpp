// `arch` verdicts that must not pass as "runs": a GPU served by a tiny part of a library's
// modules (partial coverage), a CPU-only torch asked about a GPU, and the target list of a
// library that keeps its kernels in data sections when no GPU is known. The libraries are real:
// nvcc outputs built here (tests/artifacts: embedded_ldata.so, laid out like cuFFT), the
// installed cuDNN 9 and cuFFT, Debian's CPU-only python3-torch; each test skips where its
// artifact is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/files.hpp"
#include "support/mutable_root.hpp"

using namespace cudoctor::test;
using nlohmann::json;

namespace {

/// The data-section artifacts live beside the arch/ folder (tests/artifacts/CMakeLists.txt).
std::string verdict_artifact(const std::string& name) { return std::string(CUDOCTOR_ARCH_ARTIFACTS) + "/../arch-embedded/" + name; }

#define AV_NEED_ARTIFACTS() \
    if (std::string(CUDOCTOR_ARCH_ARTIFACTS).empty()) GTEST_SKIP() << "no nvcc: artifacts not built"
#define AV_NEED(file) \
    if (!std::filesystem::exists(file)) GTEST_SKIP() << (file) << " not installed"

const std::string kVerdictCudnn = "/usr/local/cuda-13.0/lib/libcudnn_engines_precompiled.so.9";
const std::string kVerdictCufft = "/usr/local/cuda-13.0/lib/libcufft.so.12";
const std::string kVerdictDebianTorch = "/usr/lib/python3/dist-packages/torch/version.py";
const std::string kVerdictSite = "/home/alice/.local/lib/python3.10/site-packages";

json verdict_json(const std::vector<std::string>& args, int expect_exit) {
    std::vector<std::string> full = {"arch", "--json"};
    full.insert(full.end(), args.begin(), args.end());
    auto run = run_cudoctor(full, std::chrono::seconds(120));
    EXPECT_EQ(run.exit_code, expect_exit) << run.describe() << "\n" << run.out << run.err;
    auto j = json::parse(run.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << run.out << run.err;
    return j;
}

std::set<std::string> target_set(const json& file) {
    std::set<std::string> out;
    for (const auto& t : file["targets"]) out.insert(t["target"].get<std::string>());
    return out;
}

}  // namespace

// --- partial coverage ---------------------------------------------------------------------------

TEST(ArchVerdicts, FewModulesForTheGpuIsPartialNotRuns) {
    AV_NEED_ARTIFACTS();
    // 2 registered modules with sm_75; 60 in .ldata with sm_80 + sm_120.
    auto j = verdict_json({"--full", "--gpu", "7.5", "--gpu", "8.0", "--gpu", "12.0", verdict_artifact("embedded_ldata.so")}, 1);
    const auto& v = j["files"][0]["verdicts"];
    EXPECT_EQ(v[0]["verdict"], "partial");
    EXPECT_EQ(v[0]["run_mode"], "native");
    EXPECT_EQ(v[0]["partial"], true);
    EXPECT_EQ(v[0]["modules_usable"], 2);
    EXPECT_EQ(v[0]["modules_total"], 62);
    EXPECT_EQ(v[0]["best_covered"], "8.0");
    EXPECT_EQ(v[0]["best_covered_modules"], 60);
    EXPECT_EQ(v[1]["verdict"], "native");
    EXPECT_EQ(v[1]["partial"], false);
    EXPECT_EQ(v[2]["verdict"], "native");
    // The GPUs it serves: exit 0.
    verdict_json({"--full", "--gpu", "8.0", "--gpu", "12.0", verdict_artifact("embedded_ldata.so")}, 0);
    // The text names the verdict and the rule.
    auto text = run_cudoctor({"arch", "--full", "--gpu", "7.5", verdict_artifact("embedded_ldata.so")});
    EXPECT_EQ(text.exit_code, 1);
    EXPECT_NE(text.out.find("compute capability 7.5: partial: only 2 of 62 modules have code for it (sm_75), against 60 for compute "
                            "capability 8.0 — most of its kernels will not load on this GPU"),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("fewer than 1 in 20 of the modules the best-covered GPU can use"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("runs natively"), std::string::npos) << text.out;
    auto md = run_cudoctor({"arch", "--markdown", "--full", "--gpu", "7.5", verdict_artifact("embedded_ldata.so")});
    EXPECT_NE(md.out.find("**partial** (sm_75) 2/62 modules"), std::string::npos) << md.out;
}

TEST(ArchVerdicts, CudnnEnginesOnVoltaArePartial) {
    AV_NEED(kVerdictCudnn);
    // cuDNN 9 for CUDA 13 dropped Volta: 2 of its ~1,400 modules carry sm_70.
    auto j = verdict_json({"--gpu", "7.0", kVerdictCudnn}, 1);
    const auto& v = j["files"][0]["verdicts"][0];
    EXPECT_EQ(v["verdict"], "partial") << v.dump(2);
    EXPECT_EQ(v["modules_usable"], 2);
    EXPECT_GT(v["best_covered_modules"].get<int>(), 1000);
    // Turing, which it supports with a smaller kernel set than Blackwell, is not partial.
    auto turing = verdict_json({"--gpu", "7.5", "--gpu", "8.0", kVerdictCudnn}, 0);
    for (const auto& t : turing["files"][0]["verdicts"]) EXPECT_EQ(t["verdict"], "native") << t.dump(2);
}

// --- no GPU known: the whole list ---------------------------------------------------------------

TEST(ArchVerdicts, WithoutAGpuTheDataSectionsAreSearched) {
    AV_NEED_ARTIFACTS();
    auto r = MutableRoot("vmware-no-gpu");  // no NVIDIA GPU
    r.write("/opt/app/lib/libembedded.so", slurp(verdict_artifact("embedded_ldata.so")));
    auto run = run_cudoctor({"arch", "--json", "--root", r.path().string(), "/opt/app/lib/libembedded.so"});
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    auto j = json::parse(run.out);
    EXPECT_TRUE(j["gpus"].empty());
    EXPECT_EQ(j["depth"], "full");
    EXPECT_EQ(target_set(j["files"][0]), (std::set<std::string>{"sm_75", "sm_80", "sm_120"}));  // not sm_75 alone
    // --fast keeps to the registered fatbins and says the list may be incomplete.
    auto fast = run_cudoctor({"arch", "--fast", "--root", r.path().string(), "/opt/app/lib/libembedded.so"});
    EXPECT_EQ(fast.exit_code, 0);
    EXPECT_NE(fast.out.find("(--fast: only the fatbins registered at load were read; those embedded in data sections were not "
                            "searched, so the lists above may be incomplete)"),
              std::string::npos)
        << fast.out;
}

TEST(ArchVerdicts, ARegisteredOnlyScanSaysSoWithoutBlamingFast) {
    AV_NEED_ARTIFACTS();
    // Every GPU asked about runs the registered sm_75 module: the data sections are not searched.
    auto run = run_cudoctor({"arch", "--gpu", "7.5", verdict_artifact("embedded_ldata.so")});
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_EQ(run.out.find("--fast:"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("were not searched, so the lists above may be incomplete: `cudoctor arch --full` searches them too"), std::string::npos)
        << run.out;
}

TEST(ArchVerdicts, CufftWithoutAGpuListsEveryTarget) {
    AV_NEED(kVerdictCufft);
    auto j = verdict_json({kVerdictCufft}, 0);
    if (!j["gpus"].empty()) GTEST_SKIP() << "this machine has a GPU: the verdict is for it";
    EXPECT_EQ(j["depth"], "full");
    const auto found = target_set(j["files"][0]);
    for (const char* t : {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"}) EXPECT_TRUE(found.count(t)) << t;
    EXPECT_GT(j["files"][0]["modules"].get<int>(), 20000);
}

// --- a CPU-only torch -----------------------------------------------------------------------------

TEST(ArchVerdicts, CpuOnlyTorchCannotUseTheGpu) {
    // ubuntu2204-rtx4060ti's torch made a CPU build: version.py says cuda = None, and its one
    // library is an ELF without GPU code (the root's libc stub).
    auto r = MutableRoot("ubuntu2204-rtx4060ti");
    r.remove(kVerdictSite + "/torch/lib")
        .write(kVerdictSite + "/torch/version.py", "__version__ = '2.4.0+cpu'\ncuda: Optional[str] = None\nhip: Optional[str] = None\n")
        .write(kVerdictSite + "/torch/lib/libtorch_cpu.so", slurp(r.path() / "usr/lib/x86_64-linux-gnu/libc.so.6"));
    auto asked = verdict_json({"--root", r.path().string(), "torch", "--gpu", "8.9"}, 1);
    ASSERT_EQ(asked["packages"].size(), 1u) << asked.dump(2);
    const auto& p = asked["packages"][0];
    EXPECT_EQ(p["name"], "torch");
    EXPECT_EQ(p["elf_files"], 1);
    EXPECT_EQ(p["with_gpu_code"], 0);
    EXPECT_EQ(p["built_with_cuda"], false);
    EXPECT_EQ(p["build_evidence"], "torch/version.py: cuda = None (a CPU-only build)");
    EXPECT_EQ(p["verdicts"][0]["verdict"], "cannot-use");
    // No --gpu: the machine's own RTX 4060 Ti gets the same verdict.
    auto own = run_cudoctor({"arch", "--root", r.path().string(), "torch"});
    EXPECT_EQ(own.exit_code, 1) << own.out << own.err;
    EXPECT_NE(own.out.find("built without CUDA: torch/version.py: cuda = None (a CPU-only build)\n"
                           "  GeForce RTX 4060 Ti (8.9): cannot use this GPU"),
              std::string::npos)
        << own.out;
}

TEST(ArchVerdicts, ACudaTorchWithoutFatbinsGetsNoVerdict) {
    // The fixture's torch says cuda 12.1, but its libraries are stubs without GPU code: the
    // facts prove nothing either way, so no alarm.
    auto r = MutableRoot("ubuntu2204-rtx4060ti");
    auto j = verdict_json({"--root", r.path().string(), "torch", "--gpu", "8.9"}, 0);
    ASSERT_EQ(j["packages"].size(), 1u) << j.dump(2);
    EXPECT_EQ(j["packages"][0]["built_with_cuda"], true);
    EXPECT_EQ(j["packages"][0]["verdicts"], json::array());
}

TEST(ArchVerdicts, DebiansCpuTorchCannotUseAnRtx4090) {
    AV_NEED(kVerdictDebianTorch);
    if (slurp(kVerdictDebianTorch).find("cuda = None") == std::string::npos) GTEST_SKIP() << "this torch is a CUDA build";
    auto j = verdict_json({"torch", "--gpu", "8.9"}, 1);
    bool seen = false;
    for (const auto& p : j["packages"]) {
        if (p["name"] != "torch") continue;
        seen = true;
        EXPECT_EQ(p["with_gpu_code"], 0);
        EXPECT_EQ(p["verdicts"][0]["verdict"], "cannot-use") << p.dump(2);
    }
    EXPECT_TRUE(seen) << j.dump(2);
    auto text = run_cudoctor({"arch", "torch", "--gpu", "8.9"});
    EXPECT_EQ(text.exit_code, 1);
    EXPECT_NE(text.out.find("compute capability 8.9: cannot use this GPU"), std::string::npos) << text.out;
    // With no GPU to ask about (where this machine has none), it is said plainly, exit 0.
    auto plain = run_cudoctor({"arch", "torch"});
    if (plain.out.find("No NVIDIA GPU found on this machine") == std::string::npos) return;
    EXPECT_EQ(plain.exit_code, 0) << plain.out << plain.err;
    EXPECT_NE(plain.out.find("built without CUDA: torch/version.py: cuda = None (a CPU-only build)\n  it can use no NVIDIA GPU"),
              std::string::npos)
        << plain.out;
}
