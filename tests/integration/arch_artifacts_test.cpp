// `arch` on binaries the installed nvcc built here with chosen -gencode sets
// (tests/artifacts/CMakeLists.txt): the scan finds exactly the targets asked for, and the real
// binary gives the verdicts and exit codes users see. Skipped where nvcc is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "gpucode/scan.hpp"
#include "host/host.hpp"
#include "integration/run_cudoctor.hpp"

using namespace cudoctor;
using nlohmann::json;

namespace {

std::string artifact(const std::string& name) { return std::string(CUDOCTOR_ARCH_ARTIFACTS) + "/" + name; }

#define NEED_ARTIFACTS() \
    if (std::string(CUDOCTOR_ARCH_ARTIFACTS).empty()) GTEST_SKIP() << "no nvcc: artifacts not built"

std::set<std::string> targets_of(const std::string& name, gpucode::ScanDepth depth = gpucode::ScanDepth::full) {
    auto scan = gpucode::scan_file(host::Host::real(), artifact(name), depth);
    EXPECT_TRUE(scan) << scan.error().message;
    std::set<std::string> out;
    if (!scan) return out;
    EXPECT_TRUE(scan->problems.empty()) << scan->problems.front();
    for (const auto& t : gpucode::summarize(*scan)) out.insert(t.name);
    return out;
}

json arch_json(const std::vector<std::string>& args, int expect_exit) {
    std::vector<std::string> full = {"arch", "--json"};
    full.insert(full.end(), args.begin(), args.end());
    auto run = test::run_cudoctor(full);
    EXPECT_EQ(run.exit_code, expect_exit) << run.describe() << "\n" << run.out << run.err;
    auto j = json::parse(run.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << run.out;
    return j;
}

}  // namespace

TEST(ArchArtifacts, ExactlyTheTargetsAskedFor) {
    NEED_ARTIFACTS();
    using S = std::set<std::string>;
    EXPECT_EQ(targets_of("sass_75_86.o"), (S{"sm_75", "sm_86"}));                      // SASS only
    EXPECT_EQ(targets_of("ptx_80.o"), (S{"compute_80"}));                              // PTX only
    EXPECT_EQ(targets_of("multi.so"), (S{"sm_75", "sm_80", "sm_90a", "compute_90"}));  // several, arch-specific
    EXPECT_EQ(targets_of("family.o"), (S{"sm_100f", "compute_120f"}));                 // family-specific
    EXPECT_EQ(targets_of("exe_zstd"), (S{"sm_89", "compute_89"}));
    EXPECT_EQ(targets_of("exe_uncompressed"), (S{"sm_89", "compute_89"}));
    EXPECT_EQ(targets_of("lz4.o"), (S{"sm_75"}));
    EXPECT_EQ(targets_of("rdc.o"), (S{"sm_80"}));   // relocatable device code: __nv_relfatbin
    EXPECT_EQ(targets_of("lto.o"), (S{"lto_75"}));  // LTO-IR
    EXPECT_EQ(targets_of("multi.so", gpucode::ScanDepth::registered), (S{"sm_75", "sm_80", "sm_90a", "compute_90"}));
}

TEST(ArchArtifacts, CompressionAsBuilt) {
    NEED_ARTIFACTS();
    auto compression = [](const std::string& name) {
        std::map<std::string, std::string> out;
        auto scan = gpucode::scan_file(host::Host::real(), artifact(name), gpucode::ScanDepth::full);
        for (const auto& t : gpucode::summarize(*scan)) out[t.name] = t.compression;
        return out;
    };
    EXPECT_EQ(compression("exe_zstd"), (std::map<std::string, std::string>{{"sm_89", "zstd"}, {"compute_89", "zstd"}}));
    EXPECT_EQ(compression("exe_uncompressed"), (std::map<std::string, std::string>{{"sm_89", ""}, {"compute_89", ""}}));
    EXPECT_EQ(compression("lz4.o"), (std::map<std::string, std::string>{{"sm_75", "LZ4"}}));
    // nvcc 13's default: SASS stored plain, PTX compressed with zstd.
    EXPECT_EQ(compression("multi.so")["sm_75"], "");
    EXPECT_EQ(compression("multi.so")["compute_90"], "zstd");
}

TEST(ArchArtifacts, SectionsAndKinds) {
    NEED_ARTIFACTS();
    auto rdc = gpucode::scan_file(host::Host::real(), artifact("rdc.o"), gpucode::ScanDepth::full);
    ASSERT_TRUE(rdc);
    ASSERT_EQ(rdc->sections.size(), 1u);
    EXPECT_EQ(rdc->sections[0].name, "__nv_relfatbin");
    EXPECT_EQ(rdc->kind, "relocatable object");
    EXPECT_EQ(gpucode::scan_file(host::Host::real(), artifact("multi.so"), gpucode::ScanDepth::full)->kind, "shared object");
    EXPECT_EQ(gpucode::scan_file(host::Host::real(), artifact("exe_zstd"), gpucode::ScanDepth::full)->kind, "executable");
}

TEST(ArchArtifacts, VerdictsPerGpuFromTheBinary) {
    NEED_ARTIFACTS();
    // multi.so: sm_75 sm_80 sm_90a + compute_90.
    auto j = arch_json({"--gpu", "7.5", "--gpu", "RTX 4090", "--gpu", "9.0", "--gpu", "RTX 5090", "--gpu", "7.0", artifact("multi.so")}, 1);
    ASSERT_EQ(j["files"].size(), 1u);
    const auto& v = j["files"][0]["verdicts"];
    ASSERT_EQ(v.size(), 5u);
    EXPECT_EQ(v[0]["verdict"], "native");
    EXPECT_EQ(v[0]["via"], "sm_75");
    EXPECT_EQ(v[1]["gpu"], "GeForce RTX 4090");
    EXPECT_EQ(v[1]["verdict"], "native-compatible");
    EXPECT_EQ(v[1]["via"], "sm_80");
    EXPECT_EQ(v[2]["verdict"], "native");
    EXPECT_EQ(v[2]["via"], "sm_90a");
    EXPECT_EQ(v[3]["verdict"], "ptx-jit");  // an RTX 50 card: only the PTX helps
    EXPECT_EQ(v[3]["via"], "compute_90");
    EXPECT_EQ(v[3]["ptx_needs_cuda"], "13.0");
    EXPECT_EQ(v[4]["verdict"], "cannot-run");  // Volta: exit 1
    // Every GPU runs it: exit 0.
    arch_json({"--gpu", "8.6", artifact("multi.so")}, 0);
}

TEST(ArchArtifacts, TextAndMarkdown) {
    NEED_ARTIFACTS();
    auto text = test::run_cudoctor({"arch", "--gpu", "8.6", artifact("sass_75_86.o")});
    EXPECT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("SASS    sm_75 sm_86"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("compute capability 8.6: runs natively — sm_86"), std::string::npos) << text.out;
    auto md = test::run_cudoctor({"arch", "--markdown", "--gpu", "RTX 4090", artifact("ptx_80.o")});
    EXPECT_EQ(md.exit_code, 0) << md.err;
    EXPECT_NE(md.out.find("| file | SASS | PTX | compressed | GeForce RTX 4090 (8.9) |"), std::string::npos) << md.out;
    EXPECT_NE(md.out.find("| compute_80 (ISA 9.0) | 1/1 | ptx-jit (compute_80) |"), std::string::npos) << md.out;
}

TEST(ArchArtifacts, FolderWalkScansEachFileOnce) {
    NEED_ARTIFACTS();
    auto j = arch_json({"--gpu", "9.0", CUDOCTOR_ARCH_ARTIFACTS}, 1);  // sass_75_86.o etc. cannot run on 9.0
    std::set<std::string> names;
    for (const auto& f : j["files"]) names.insert(std::filesystem::path(f["path"].get<std::string>()).filename());
    EXPECT_EQ(names, (std::set<std::string>{"exe_uncompressed", "exe_zstd", "family.o", "lto.o", "lz4.o", "multi.so", "ptx_80.o", "rdc.o",
                                            "sass_75_86.o"}));
    EXPECT_TRUE(j["errors"].empty());
}
