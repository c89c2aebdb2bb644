// `kernels` on one small extension (tests/artifacts/kernels_ext.cu) that the installed nvcc built
// here as every variant: several archs with PTX, uncompressed, zstd, LZ4, -rdc, LTO-IR and a
// stripped host side. Each must list exactly the six kernels compiled, with exactly the targets
// asked for; multi.so is also checked against ptxas' own list (-Xptxas -v). Skipped without nvcc.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "formats/fatbin.hpp"
#include "gpucode/scan.hpp"
#include "host/host.hpp"
#include "integration/run_cudoctor.hpp"
#include "support/files.hpp"
#include "support/temp_dir.hpp"

using namespace cudoctor;
using nlohmann::json;

namespace {

std::string kernel_artifact(const std::string& name) { return std::string(CUDOCTOR_KERNEL_ARTIFACTS) + "/" + name; }

#define NEED_KERNEL_ARTIFACTS() \
    if (std::string(CUDOCTOR_KERNEL_ARTIFACTS).empty()) GTEST_SKIP() << "no nvcc: artifacts not built"

using Targets = std::set<std::string>;
struct Carried {
    Targets sass, ptx, lto;
    bool operator==(const Carried&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Carried& c) {
    auto list = [&](const Targets& t) {
        for (const auto& s : t) os << s << ' ';
    };
    os << "{sass: ";
    list(c.sass);
    os << "ptx: ";
    list(c.ptx);
    os << "lto: ";
    list(c.lto);
    return os << "}";
}

// The six kernels of kernels_ext.cu, by symbol; ops::twice is a device function, never a kernel.
const std::vector<std::string> kKernels = {"add_one",
                                           "_Z10reduce_sumPKfPfi",
                                           "_Z9fill_zeroPfi",
                                           "_ZN3ops12scale_kernelIfLi1EEEvPT_S1_i",
                                           "_ZN3ops12scale_kernelIdLi2EEEvPT_S1_i",
                                           "_ZN3ops12scale_kernelIiLi3EEEvPT_S1_i"};

std::map<std::string, Carried> every_kernel(const Carried& c) {
    std::map<std::string, Carried> out;
    for (const auto& k : kKernels) out[k] = c;
    return out;
}

json kernels_json(const std::string& name, int expect_exit = 0) {
    auto run = test::run_cudoctor({"kernels", "--json", kernel_artifact(name)});
    EXPECT_EQ(run.exit_code, expect_exit) << name << ": " << run.describe() << "\n" << run.out << run.err;
    auto j = json::parse(run.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << run.out;
    return j;
}

std::map<std::string, Carried> carried(const json& file) {
    std::map<std::string, Carried> out;
    for (const auto& k : file["kernels"]) {
        Carried c;
        for (const auto& t : k["sass"]) c.sass.insert(t.get<std::string>());
        for (const auto& t : k["ptx"]) c.ptx.insert(t.get<std::string>());
        for (const auto& t : k["lto_ir"]) c.lto.insert(t.get<std::string>());
        std::string name = k["name"];
        // -rdc: the static kernel's device name is module-unique ("__nv_static_<hash>__Z9fill_zeroPfi").
        if (name.starts_with("__nv_static_") && name.ends_with("__Z9fill_zeroPfi")) name = "_Z9fill_zeroPfi";
        out[name] = c;
    }
    return out;
}

}  // namespace

TEST(KernelsArtifacts, ExactlyTheKernelsCompiledInEveryVariant) {
    NEED_KERNEL_ARTIFACTS();
    struct Case {
        std::string file;
        Carried expect;
        std::uint64_t decompressed;
    };
    const std::vector<Case> cases = {
        {"multi.so", {{"sm_75", "sm_86"}, {"compute_86"}, {}}, 1},  // nvcc 13 compresses the PTX only by default
        {"plain.o", {{"sm_80"}, {}, {}}, 0},                        // -no-compress
        {"zstd.o", {{"sm_80"}, {"compute_80"}, {}}, 2},             // --compress-mode=size -compress-all
        {"lz4.o", {{"sm_75"}, {"compute_75"}, {}}, 2},              // --compress-mode=speed -compress-all
        {"rdc.o", {{"sm_80"}, {}, {}}, 0},                          // -rdc: the device function stays a function
        {"lto.o", {{}, {}, {"lto_75"}}, 0},                         // LTO-IR: named by the host stubs
        {"stripped.so", {{"sm_90a"}, {}, {}}, 0},                   // host side stripped: cubins alone
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.file);
        const auto j = kernels_json(c.file);
        ASSERT_EQ(j["files"].size(), 1u) << j.dump(2);
        const auto& f = j["files"][0];
        EXPECT_EQ(carried(f), every_kernel(c.expect));
        EXPECT_EQ(f["totals"]["kernels"], 6);
        EXPECT_EQ(f["totals"]["decompressed_images"], c.decompressed);
        EXPECT_TRUE(f["problems"].empty()) << f["problems"].dump();
        const bool stripped = c.file == "stripped.so";
        EXPECT_EQ(f["totals"]["host_symbols"], !stripped);
        EXPECT_EQ(f["totals"]["host_stubs"], stripped ? 0 : 6);
        for (const auto& k : f["kernels"]) EXPECT_EQ(k["host_stub"], !stripped) << k.dump();
    }
}

TEST(KernelsArtifacts, AgreesWithPtxasOwnListOfEntryFunctions) {
    NEED_KERNEL_ARTIFACTS();
    std::ifstream in(kernel_artifact("multi.ptxas.txt"));
    std::stringstream log;
    log << in.rdbuf();
    std::set<std::pair<std::string, std::string>> ptxas, ours;
    const std::regex line("Compiling entry function '([^']+)' for '(sm_[0-9a-z]+)'");
    const std::string text = log.str();
    for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator(); ++it)
        ptxas.emplace((*it)[1].str(), (*it)[2].str());
    ASSERT_EQ(ptxas.size(), 12u) << text;  // 6 kernels for sm_75 and sm_86
    const auto j = kernels_json("multi.so");
    for (const auto& k : j["files"][0]["kernels"])
        for (const auto& t : k["sass"]) ours.emplace(k["name"].get<std::string>(), t.get<std::string>());
    EXPECT_EQ(ours, ptxas);
}

TEST(KernelsArtifacts, DemangledNamesAndTheThreeViews) {
    NEED_KERNEL_ARTIFACTS();
    const auto j = kernels_json("multi.so");
    std::set<std::string> demangled;
    for (const auto& k : j["files"][0]["kernels"]) demangled.insert(k["demangled"].get<std::string>());
    EXPECT_EQ(demangled, (std::set<std::string>{"add_one", "reduce_sum(float const*, float*, int)", "fill_zero(float*, int)",
                                                "void ops::scale_kernel<float, 1>(float*, float, int)",
                                                "void ops::scale_kernel<double, 2>(double*, double, int)",
                                                "void ops::scale_kernel<int, 3>(int*, int, int)"}));

    auto text = test::run_cudoctor({"kernels", kernel_artifact("multi.so")});
    EXPECT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("6 kernels (18 in all images)"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("  void ops::scale_kernel<int, 3>(int*, int, int)  [sm_75 sm_86 compute_86]\n"), std::string::npos) << text.out;
    auto quiet = test::run_cudoctor({"-q", "kernels", kernel_artifact("multi.so"), "/bin/true"});
    EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
    EXPECT_EQ(quiet.out, "6 kernels in 1 file with GPU code, 1 without\n");
    auto md = test::run_cudoctor({"kernels", "--markdown", kernel_artifact("lto.o")});
    EXPECT_EQ(md.exit_code, 0) << md.err;
    EXPECT_NE(md.out.find("| `reduce_sum(float const*, float*, int)` |  |  | lto_75 |"), std::string::npos) << md.out;
    auto totals = test::run_cudoctor({"kernels", "--totals", std::string(CUDOCTOR_KERNEL_ARTIFACTS)});
    EXPECT_EQ(totals.exit_code, 0) << totals.err;
    EXPECT_EQ(totals.out.find("add_one"), std::string::npos) << totals.out;  // totals only
    EXPECT_NE(totals.out.find("rdc.o (relocatable object)\n  6 kernels (6 in all images) in 1 module: 1 cubin; 6 host launch stubs"),
              std::string::npos)
        << totals.out;
}

namespace {

/// The entries of an artifact's fatbins, with their offsets in the file.
std::vector<formats::FatbinEntry> entries_of(const std::string& path) {
    auto scan = gpucode::scan_file(host::Host::real(), path, gpucode::ScanDepth::full);
    EXPECT_TRUE(scan) << scan.error().message;
    std::vector<formats::FatbinEntry> out;
    if (scan)
        for (const auto& m : scan->modules) out.insert(out.end(), m.entries.begin(), m.entries.end());
    return out;
}

}  // namespace

TEST(KernelsArtifacts, HostileFatbinsAndCubinsGiveOneLineProblemsAndKeepTheRest) {
    NEED_KERNEL_ARTIFACTS();
    test::TempDir dir;
    // zstd.o with its cubin's compressed bytes overwritten: the PTX still names the kernels.
    std::string zstd = test::slurp(kernel_artifact("zstd.o"));
    std::uint64_t sass_at = 0;
    for (const auto& e : entries_of(kernel_artifact("zstd.o")))
        if (e.kind == formats::FatbinKind::sass) sass_at = e.offset + e.header_size;
    ASSERT_NE(sass_at, 0u);
    for (std::size_t i = 16; i < 400; ++i) zstd[sass_at + i] = static_cast<char>(i * 7);
    const auto bad_zstd = dir.write("bad_zstd.o", zstd).string();
    auto run = test::run_cudoctor({"kernels", "--json", bad_zstd});
    EXPECT_EQ(run.exit_code, 1) << run.describe() << run.err;
    auto j = json::parse(run.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << run.out;
    EXPECT_EQ(carried(j["files"][0]), every_kernel({{}, {"compute_80"}, {}}));
    ASSERT_EQ(j["files"][0]["problems"].size(), 1u) << j.dump(2);
    const std::string problem = j["files"][0]["problems"][0];
    EXPECT_TRUE(problem.starts_with("fatbin entry at offset ") && problem.find("(sm_80): corrupt zstd data") != std::string::npos) << problem;

    // plain.o with its cubin's section header table moved past the end of the cubin.
    std::string plain = test::slurp(kernel_artifact("plain.o"));
    const auto plain_entries = entries_of(kernel_artifact("plain.o"));
    ASSERT_EQ(plain_entries.size(), 1u);
    test::put<std::uint64_t>(plain, plain_entries[0].offset + plain_entries[0].header_size + 0x28, 1ull << 40);
    run = test::run_cudoctor({"kernels", dir.write("bad_cubin.o", plain).string()});
    EXPECT_EQ(run.exit_code, 1) << run.describe() << run.err;
    EXPECT_NE(run.out.find("  problem: fatbin entry at offset " + std::to_string(plain_entries[0].offset) +
                           " (sm_80): truncated ELF: section header table"),
              std::string::npos)
        << run.out;
    // Host stubs are still read: the kernels are listed, with no device code to show.
    EXPECT_NE(run.out.find("  add_one  [host stub only: no device code in this file]\n"), std::string::npos) << run.out;

    // Not an ELF at all, and a missing file: one line each, exit 2, nothing on stdout.
    // (Arguments that name nothing are said first, then the files that could not be read.)
    run = test::run_cudoctor({"kernels", dir.write("notes.txt", "hello").string(), (dir.path() / "missing.so").string()});
    EXPECT_EQ(run.exit_code, 2) << run.describe();
    EXPECT_EQ(run.err, "cudoctor kernels: " + (dir.path() / "missing.so").string() +
                           ": no such file or folder\ncudoctor kernels: " + (dir.path() / "notes.txt").string() + ": not an ELF file\n");
    EXPECT_EQ(run.out, "");
}
