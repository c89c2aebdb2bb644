// `arch` on the real libraries of the installed CUDA 13.0 toolkit and cuDNN 9: what is known of
// them (formats.md 1.8, verified with a separate Python reader) and that whole scans succeed.
// Skipped where the toolkit is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "gpucode/scan.hpp"
#include "host/host.hpp"
#include "integration/run_cudoctor.hpp"

using namespace cudoctor;

namespace {

const std::string kLib = "/usr/local/cuda-13.0/lib";

#define NEED(file) \
    if (!std::filesystem::exists(file)) GTEST_SKIP() << (file) << " not installed"

struct FoundTargets {
    std::set<std::string> registered;  ///< targets in .nv_fatbin / __nv_relfatbin
    std::set<std::string> embedded;    ///< targets found in data sections
    gpucode::FileScan scan;
};

FoundTargets scan_targets(const std::string& file, gpucode::ScanDepth depth = gpucode::ScanDepth::full) {
    auto s = gpucode::scan_file(host::Host::real(), file, depth);
    EXPECT_TRUE(s) << s.error().message;
    FoundTargets f;
    if (!s) return f;
    EXPECT_TRUE(s->problems.empty()) << s->problems.front();
    for (const auto& m : s->modules)
        for (const auto& i : m.images) (m.embedded ? f.embedded : f.registered).insert(gpucode::target_name(i));
    f.scan = std::move(*s);
    return f;
}

}  // namespace

TEST(ArchToolkit, CublasLt) {
    const std::string lib = kLib + "/libcublasLt.so.13";
    NEED(lib);
    auto f = scan_targets(lib);
    EXPECT_EQ(f.registered, (std::set<std::string>{"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103",
                                                   "sm_120", "sm_120f", "sm_121", "compute_75", "compute_120"}));
    // CUTLASS kernels kept in .cask_resource, loaded through the module API.
    EXPECT_EQ(f.embedded, (std::set<std::string>{"sm_100a", "sm_100f", "sm_103f", "sm_120f"}));
    std::uint64_t registered = 0, embedded = 0;
    for (const auto& s : f.scan.sections) (s.embedded ? embedded : registered) += s.modules;
    EXPECT_EQ(registered, 2782u);  // as many containers as .nvFatBinSegment has records
    EXPECT_EQ(embedded, 383u);
    for (const auto& m : f.scan.modules)
        for (const auto& i : m.images) EXPECT_EQ(i.compression, formats::FatbinCompression::zstd);
    // --fast reads only the registered ones.
    auto fast = scan_targets(lib, gpucode::ScanDepth::registered);
    EXPECT_EQ(fast.registered, f.registered);
    EXPECT_TRUE(fast.embedded.empty());
}

TEST(ArchToolkit, CudartCarriesNoGpuCode) {
    const std::string lib = kLib + "/libcudart.so.13";
    NEED(lib);
    auto f = scan_targets(lib);
    EXPECT_FALSE(f.scan.has_gpu_code());
    EXPECT_EQ(f.scan.kind, "shared object");
}

TEST(ArchToolkit, CudnnEnginesPrecompiled) {
    const std::string lib = kLib + "/libcudnn_engines_precompiled.so.9";
    NEED(lib);
    auto f = scan_targets(lib);
    for (const char* t : {"sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_90a", "sm_100", "sm_100f", "sm_103", "sm_120", "sm_120f",
                          "sm_121", "compute_121"})
        EXPECT_TRUE(f.registered.count(t)) << t;
    for (const auto& m : f.scan.modules)
        for (const auto& i : m.images)
            if (i.kind == formats::FatbinKind::ptx && !m.embedded) {
                EXPECT_EQ(std::pair(i.ptx_major, i.ptx_minor), (std::pair<std::uint16_t, std::uint16_t>(9, 1)));
            }
}

TEST(ArchToolkit, CufftKeepsItsKernelsInLdata) {
    const std::string lib = kLib + "/libcufft.so.12";
    NEED(lib);
    auto f = scan_targets(lib);
    EXPECT_EQ(f.registered, (std::set<std::string>{"sm_75"}));  // a scan of .nv_fatbin alone sees one cubin
    for (const char* t : {"sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120", "lto_75"}) EXPECT_TRUE(f.embedded.count(t)) << t;
    // On an RTX 4090 the registered cubin alone says "cannot run"; the embedded ones say native.
    auto run = test::run_cudoctor({"arch", "--json", "--gpu", "8.9", lib});
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("\"verdict\": \"native\""), std::string::npos);
    auto fast = test::run_cudoctor({"arch", "--json", "--fast", "--gpu", "8.9", lib});
    EXPECT_EQ(fast.exit_code, 1);
    EXPECT_NE(fast.out.find("\"verdict\": \"cannot-run\""), std::string::npos);
}

TEST(ArchToolkit, WholeLibraryFolderScansCleanly) {
    NEED(kLib);
    auto run = test::run_cudoctor({"arch", "--json", "--gpu", "9.0", kLib}, std::chrono::seconds(120));
    auto j = nlohmann::json::parse(run.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << run.out << run.err;
    EXPECT_TRUE(j["errors"].empty()) << j["errors"].dump();
    // Every library with GPU code runs on a Hopper GPU but one: libcufftw.so.12 carries a single
    // sm_75 cubin (its FFTs run in libcufft), so the exit status says "problems found".
    EXPECT_EQ(run.exit_code, 1) << run.err;
    std::set<std::string> with_code, cannot_run;
    for (const auto& f : j["files"]) {
        const std::string name = std::filesystem::path(f["path"].get<std::string>()).filename();
        with_code.insert(name);
        if (f["verdicts"][0]["verdict"] == "cannot-run") cannot_run.insert(name);
        EXPECT_TRUE(f["problems"].empty()) << f["path"] << f["problems"].dump();
    }
    EXPECT_EQ(cannot_run, std::set<std::string>{"libcufftw.so.12"});
    for (const char* lib : {"libcublas.so.13", "libcublasLt.so.13", "libcudnn_engines_precompiled.so.9", "libcufft.so.12",
                            "libcusparse.so.12", "libnccl.so.2", "libcurand.so.10"})
        EXPECT_TRUE(with_code.count(lib)) << lib;
    std::set<std::string> without;
    for (const auto& p : j["without_gpu_code"]) without.insert(std::filesystem::path(p.get<std::string>()).filename());
    EXPECT_TRUE(without.count("libcudart.so.13"));
}
