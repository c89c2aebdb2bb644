// Which GPU code runs on which GPU, table-driven, and --gpu name resolution over the real KB.
#include <gtest/gtest.h>

#include "gpucode/compatibility.hpp"
#include "gpucode/gpus.hpp"
#include "kb/kb.hpp"

using namespace cudoctor;
using namespace cudoctor::gpucode;

namespace {

Image img(std::string_view name, std::uint16_t isa_major = 0, std::uint16_t isa_minor = 0) {
    auto i = parse_target(name);
    EXPECT_TRUE(i) << name;
    i->ptx_major = isa_major;
    i->ptx_minor = isa_minor;
    return *i;
}

ComputeCapability cc(std::string_view s) { return *parse_compute_capability(s); }

}  // namespace

TEST(ArchCompatibility, ComputeCapabilitySpellings) {
    for (const char* s : {"8.9", "sm_89", "sm89", "compute_89", "89", "sm_89a"})
        EXPECT_EQ(parse_compute_capability(s), (ComputeCapability{8, 9})) << s;
    for (const char* s : {"12.0", "sm_120", "120", "sm_120f"}) EXPECT_EQ(parse_compute_capability(s), (ComputeCapability{12, 0})) << s;
    for (const char* s : {"", "8", "RTX 4090", "8.x", "0.5", "sm_", "8.10"}) EXPECT_FALSE(parse_compute_capability(s)) << s;
    EXPECT_EQ(cc("10.3").str(), "10.3");
}

TEST(ArchCompatibility, RunModeTable) {
    struct Row {
        const char* image;
        const char* gpu;
        RunMode mode;
    } rows[] = {
        {"sm_86", "8.6", RunMode::native_exact},         {"sm_80", "8.6", RunMode::native_compatible},
        {"sm_80", "8.9", RunMode::native_compatible},    {"sm_86", "8.0", RunMode::cannot_run},
        {"sm_80", "9.0", RunMode::cannot_run},           {"sm_75", "8.0", RunMode::cannot_run},
        {"sm_90a", "9.0", RunMode::native_exact},        {"sm_100a", "10.3", RunMode::cannot_run},  // a: exactly that cc
        {"sm_100f", "10.3", RunMode::native_compatible}, {"sm_100f", "10.0", RunMode::native_exact},
        {"sm_100f", "12.0", RunMode::cannot_run},        {"sm_120f", "12.1", RunMode::native_compatible},
        {"compute_75", "12.0", RunMode::ptx_jit},        {"compute_90", "8.9", RunMode::cannot_run},
        {"compute_90a", "9.0", RunMode::ptx_jit},        {"compute_90a", "10.0", RunMode::cannot_run},
        {"compute_100f", "10.3", RunMode::ptx_jit},      {"compute_100f", "12.0", RunMode::cannot_run},
        {"lto_75", "7.5", RunMode::cannot_run},
    };
    for (const auto& r : rows) EXPECT_EQ(run_mode(img(r.image), cc(r.gpu)), r.mode) << r.image << " on " << r.gpu;
}

TEST(ArchCompatibility, TargetNamesRoundTrip) {
    for (const char* n : {"sm_75", "sm_90a", "sm_120f", "compute_120", "compute_100f", "lto_75"}) EXPECT_EQ(target_name(img(n)), n);
    for (const char* n : {"sm", "sm_x", "gfx90a", "compute_", "sm_9"}) EXPECT_FALSE(parse_target(n)) << n;
}

TEST(ArchCompatibility, PtxIsaToCudaRelease) {
    EXPECT_EQ(cuda_for_ptx_isa(9, 0)->str(), "13.0");
    EXPECT_EQ(cuda_for_ptx_isa(8, 6)->str(), "12.7");  // there is no PTX ISA for 12.6
    EXPECT_EQ(cuda_for_ptx_isa(7, 8)->str(), "11.8");
    EXPECT_FALSE(cuda_for_ptx_isa(9, 9));
}

TEST(ArchCompatibility, VerdictPrefersNativeAndCountsModules) {
    // Two modules: one with sm_80 + PTX 9.0, one with sm_90a only (Hopper-only kernels).
    const std::vector<std::vector<Image>> modules = {{img("sm_80"), img("compute_90", 9, 0)}, {img("sm_90a")}, {img("lto_75")}};
    auto ada = verdict_for(modules, cc("8.9"));
    EXPECT_EQ(ada.mode, RunMode::native_compatible);
    EXPECT_EQ(ada.via, "sm_80");
    EXPECT_EQ(ada.modules_usable, 1u);
    EXPECT_EQ(ada.modules_total, 2u);  // the LTO-IR-only module is not loadable code
    auto hopper = verdict_for(modules, cc("9.0"));
    EXPECT_EQ(hopper.mode, RunMode::native_exact);
    EXPECT_EQ(hopper.via, "sm_90a");
    EXPECT_EQ(hopper.modules_usable, 2u);
    auto blackwell = verdict_for(modules, cc("12.0"), Version::parse("12.4"));
    EXPECT_EQ(blackwell.mode, RunMode::ptx_jit);
    EXPECT_EQ(blackwell.via, "compute_90");
    EXPECT_EQ(blackwell.ptx_needs_cuda->str(), "13.0");
    EXPECT_EQ(blackwell.driver_too_old, true);  // a CUDA 12.4 driver cannot load PTX ISA 9.0
    EXPECT_FALSE(verdict_for(modules, cc("12.0")).driver_too_old);
    auto volta = verdict_for(modules, cc("7.0"));
    EXPECT_EQ(volta.mode, RunMode::cannot_run);
    EXPECT_EQ(volta.via, "");
    EXPECT_EQ(verdict_for({}, cc("8.9")).mode, RunMode::cannot_run);
}

TEST(ArchGpus, NamesAndCapabilitiesFromTheKb) {
    auto kb = kb::Kb::load(std::nullopt);
    ASSERT_TRUE(kb);
    auto rtx4090 = resolve_gpu(*kb, "RTX 4090");
    ASSERT_TRUE(rtx4090) << rtx4090.error().message;
    EXPECT_EQ(rtx4090->name, "GeForce RTX 4090");
    EXPECT_EQ(rtx4090->cc.str(), "8.9");
    EXPECT_EQ(resolve_gpu(*kb, "nvidia geforce rtx 5090")->cc.str(), "12.0");
    EXPECT_EQ(resolve_gpu(*kb, "8.6")->name, "compute capability 8.6");
    EXPECT_EQ(resolve_gpu(*kb, "sm_120")->cc.str(), "12.0");
    auto unknown = resolve_gpu(*kb, "Voodoo 3");
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().code, Errc::usage);
    EXPECT_EQ(unknown.error().message, "--gpu 'Voodoo 3': not a compute capability (8.9, sm_89) nor a GPU name in the knowledge base");
    auto ambiguous = resolve_gpu(*kb, "GeForce RTX");
    ASSERT_FALSE(ambiguous);
    EXPECT_NE(ambiguous.error().message.find("matches GPUs of different compute capabilities"), std::string::npos);
}

// A probed machine's GPUs as targets: pure, from the Snapshot's list alone.
TEST(ArchGpus, MachineGpusFromTheProbedList) {
    snapshot::Gpu named, unnamed, unknown_cc;
    named.bus_id = "0000:01:00.0";
    named.name = "GeForce RTX 4090";
    named.compute_capability = "8.9";
    unnamed.bus_id = "0000:02:00.0";
    unnamed.compute_capability = "9.0";
    unknown_cc.bus_id = "0000:03:00.0";
    unknown_cc.name = "Mystery";
    const auto targets = machine_gpus({named, unnamed, unknown_cc});
    ASSERT_EQ(targets.size(), 2u) << "a GPU without a known compute capability is left out";
    EXPECT_EQ(targets[0].name, "GeForce RTX 4090");
    EXPECT_EQ(targets[0].cc.str(), "8.9");
    EXPECT_EQ(targets[0].source, "0000:01:00.0");
    EXPECT_EQ(targets[1].name, "GPU 0000:02:00.0");
    EXPECT_TRUE(machine_gpus({}).empty());
}
