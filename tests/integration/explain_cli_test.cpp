// `cudoctor explain` as users run it: text, --log, standard input; exit codes; the JSON shape;
// and the tie-in to fixture machines (--root) and saved snapshots (--snapshot).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/json_query.hpp"
#include "support/mutable_root.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test {
namespace {

using nlohmann::json;

const std::string kRoots = CUDOCTOR_ROOTS_DIR;
const std::string kErrorLogs = std::string(CUDOCTOR_SOURCE_DIR) + "/tests/fixtures/errors";

json explain_json(const std::vector<std::string>& args, int expected_exit = 0) {
    std::vector<std::string> full = {"explain", "--json"};
    full.insert(full.end(), args.begin(), args.end());
    auto run = run_cudoctor(full);
    EXPECT_EQ(run.exit_code, expected_exit) << run.describe() << "\n" << run.err << run.out;
    return json::parse(run.out);
}

const json* cause(const json& doc, const std::string& id) { return find_by(doc["causes"], "id", id); }

std::string facts(const json& c, const std::string& verdict) {
    std::string out;
    for (const auto& e : c["evidence"])
        if (e["verdict"] == verdict) out += e["fact"].get<std::string>() + "\n";
    return out;
}

bool find_by_value(const json& list, const std::string& value) {
    for (const auto& v : list)
        if (v == value) return true;
    return false;
}

std::string render_text_of(const std::vector<std::string>& args) {
    std::vector<std::string> full = {"explain"};
    full.insert(full.end(), args.begin(), args.end());
    auto run = run_cudoctor(full);
    EXPECT_EQ(run.exit_code, 0) << run.describe() << "\n" << run.err;
    return run.out;
}

std::string fixes(const json& c) {
    std::string out;
    for (const auto& f : c["fix"]) out += f.get<std::string>() + "\n";
    return out;
}

}  // namespace

TEST(ExplainCli, TextArgumentGivesTheIssueJsonShape) {
    auto doc = explain_json({"--no-machine", "RuntimeError: CUDA error: no kernel image is available for execution on the device"});
    ASSERT_EQ(doc["causes"].size(), 1u);
    const auto& c = doc["causes"][0];
    for (const char* key : {"id", "confidence", "matched_lines", "title", "explanation", "fix", "evidence"})
        EXPECT_TRUE(c.contains(key)) << key;
    EXPECT_EQ(c["id"], "no-kernel-image");
    EXPECT_EQ(c["confidence"], "high");
    EXPECT_EQ(c["matched_lines"][0]["line"], 1);
    EXPECT_TRUE(doc["machine"].is_null());
}

TEST(ExplainCli, NothingMatchedExitsOneAndSaysSo) {
    auto run = run_cudoctor({"explain", "--no-machine", "error: expected ';' before '}' token (cuda_utils.cpp:12)"});
    EXPECT_EQ(run.exit_code, 1) << run.describe();
    EXPECT_NE(run.out.find("No known CUDA error found in 1 line"), std::string::npos) << run.out;
    auto doc = explain_json({"--no-machine", "all 12 tests passed"}, 1);
    EXPECT_TRUE(doc["causes"].empty());
}

TEST(ExplainCli, ReadsALogFileAndReportsTheRootFirst) {
    TempDir tmp;
    const auto log = tmp.write("pytest.log",
                               "============================= test session starts ==============================\n"
                               "collected 3 items\n\n"
                               "tests/test_model.py::test_forward FAILED                                   [ 33%]\n"
                               "E       RuntimeError: No CUDA GPUs are available\n"
                               "/usr/lib/python3/dist-packages/torch/cuda/__init__.py:118: UserWarning: CUDA initialization: "
                               "The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver\n"
                               "=========================== 1 failed, 2 passed in 1.32s ===========================\n");
    auto doc = explain_json({"--no-machine", "--log", log.string()});
    ASSERT_EQ(doc["causes"].size(), 2u) << doc.dump(2);
    EXPECT_EQ(doc["causes"][0]["id"], "driver-too-old");
    EXPECT_EQ(doc["causes"][0]["matched_lines"][0]["line"], 6);
    EXPECT_EQ(doc["causes"][1]["id"], "torch-cuda-unavailable");
    EXPECT_EQ(doc["causes"][1]["consequence_of"], "driver-too-old");
    EXPECT_EQ(doc["lines"], 7);
}

TEST(ExplainCli, UnreadableInputIsAUsageError) {
    auto missing = run_cudoctor({"explain", "--log", "/nonexistent/build.log"});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("cannot open log /nonexistent/build.log"), std::string::npos) << missing.err;
    TempDir tmp;
    auto folder = run_cudoctor({"explain", "--log", tmp.str()});
    EXPECT_EQ(folder.exit_code, 2);
    EXPECT_NE(folder.err.find("it is a folder"), std::string::npos) << folder.err;
    auto both = run_cudoctor({"explain", "--log", "x.log", "some text"});
    EXPECT_EQ(both.exit_code, 2);
    auto bad_snapshot = run_cudoctor({"explain", "--snapshot", tmp.write("s.json", "{not json").string(), "CUDA out of memory."});
    EXPECT_EQ(bad_snapshot.exit_code, 2) << bad_snapshot.err;
    auto json_error = run_cudoctor({"explain", "--json", "--log", "/nonexistent/x"});
    EXPECT_EQ(json::parse(json_error.out)["error"]["code"], "not found");
}

TEST(ExplainCli, JunkAndMegabyteLinesAreReadInFullWithoutStalling) {
    TempDir tmp;
    std::string junk;
    // Junk bytes of every value but NUL (a NUL makes it a binary file, refused as grep would).
    for (int i = 0; i < (4 << 20); ++i) {
        const auto c = static_cast<char>((i * 2654435761u) >> 24);
        junk += c == '\0' ? '\1' : c;
    }
    junk += "\nImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n";
    junk += std::string(3u << 20, 'z');  // a last line of 3 MB without a newline
    const auto log = tmp.write("junk.bin", junk);
    auto doc = explain_json({"--no-machine", "--log", log.string()});
    ASSERT_NE(cause(doc, "missing-cudart"), nullptr) << doc.dump(2);
    EXPECT_EQ(doc["bytes"], junk.size());
}

// --- tie-in: the cause checked against fixture machines -------------------------------------

TEST(ExplainMachine, CudnnFoundByTheLoaderContradictsTheMissingLibrary) {
    auto doc = explain_json({"--root", kRoots + "/ubuntu2204-rtx4060ti", "ImportError: libcudnn.so.9: cannot open shared object file"});
    const json* c = cause(doc, "missing-cudnn");
    ASSERT_NE(c, nullptr);
    EXPECT_NE(facts(*c, "contradicts").find("cuDNN 9.1.0 (toolkit) in /usr/local/cuda-12.4/targets/x86_64-linux/lib"), std::string::npos)
        << c->dump(2);
    EXPECT_EQ((*c)["confidence"], "medium");  // contradicted by this machine
}

TEST(ExplainMachine, CudnnOutsideTheLoaderPathIsLocatedAndTheFixNamesItsFolder) {
    // The same machine, but ldconfig never ran for the toolkit folder and the shell has no
    // LD_LIBRARY_PATH: cuDNN 9 is there, unseen.
    MutableRoot root("ubuntu2204-rtx4060ti");
    root.remove("/etc/ld.so.cache").env("LD_LIBRARY_PATH", std::nullopt);
    auto doc = explain_json({"--root", root.path().string(), "--log", kErrorLogs + "/missing-cudnn/heygem-linux-python-hack-5.log"});
    const json* c = cause(doc, "missing-cudnn");
    ASSERT_NE(c, nullptr) << doc.dump(2);
    const auto confirmed = facts(*c, "confirms");
    EXPECT_NE(confirmed.find("cuDNN 9 is on this machine, in /usr/local/cuda-12.4/targets/x86_64-linux/lib"), std::string::npos)
        << c->dump(2);
    EXPECT_NE(confirmed.find("neither in the loader cache"), std::string::npos);
    EXPECT_NE(fixes(*c).find("export LD_LIBRARY_PATH=/usr/local/cuda-12.4/targets/x86_64-linux/lib:$LD_LIBRARY_PATH"), std::string::npos);
    EXPECT_EQ((*c)["confidence"], "high");
}

TEST(ExplainMachine, NoKernelImageComparesThisGpuWithTheBuild) {
    // RTX 4060 Ti (sm_89) against a log from an RTX 5090 (sm_120) whose build stops at sm_90.
    auto doc = explain_json({"--root", kRoots + "/ubuntu2204-rtx4060ti", "--log", kErrorLogs + "/no-kernel-image/applio-1006.log"});
    const json* c = cause(doc, "no-kernel-image");
    ASSERT_NE(c, nullptr);
    EXPECT_NE(facts(*c, "context").find("the log's GPU is sm_120; this machine's GeForce RTX 4060 Ti is sm_89"), std::string::npos)
        << c->dump(2);
    // The build in the log carries sm_86 and sm_90 but not sm_89: it would fail here too.
    EXPECT_NE(facts(*c, "confirms").find("sm_89 is not among the architectures the build in the log carries"), std::string::npos)
        << c->dump(2);
}

TEST(ExplainMachine, DriverLibraryMismatchIsConfirmedByTheVersions) {
    auto doc =
        explain_json({"--root", kRoots + "/driver-mismatch", "--log", kErrorLogs + "/driver-library-mismatch/mozilla-translations-1167.log"});
    const json* c = cause(doc, "driver-library-mismatch");
    ASSERT_NE(c, nullptr);
    EXPECT_NE(facts(*c, "confirms").find("the loaded kernel module is 535.183.01 but the user-space libraries are 545.29.06"), std::string::npos)
        << c->dump(2);
    EXPECT_NE(fixes(*c).find("sudo reboot"), std::string::npos);
    EXPECT_EQ((*c)["confidence"], "high");
    // On a healthy machine the same log is contradicted.
    auto healthy = explain_json(
        {"--root", kRoots + "/ubuntu2204-rtx4060ti", "--log", kErrorLogs + "/driver-library-mismatch/mozilla-translations-1167.log"});
    EXPECT_NE(facts(*cause(healthy, "driver-library-mismatch"), "contradicts").find("both 550.54.15"), std::string::npos);
}

TEST(ExplainMachine, DriverNotLoadedOnTheNouveauMachine) {
    // nvidia-smi's failure is its own cause (nvidia-smi-missing), read against the module state.
    auto doc = explain_json({"--root", kRoots + "/nouveau", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."});
    const json* c = cause(doc, "nvidia-smi-missing");
    ASSERT_NE(c, nullptr);
    const auto confirmed = facts(*c, "confirms");
    EXPECT_NE(confirmed.find("no nvidia kernel module is loaded"), std::string::npos) << c->dump(2);
    EXPECT_NE(confirmed.find("nouveau"), std::string::npos) << c->dump(2);
    EXPECT_NE(fixes(*c).find("blacklist nouveau"), std::string::npos);
}

TEST(ExplainMachine, WslCausesAreCheckedAgainstThePlatform) {
    auto wsl = explain_json({"--root", kRoots + "/wsl2", "ldconfig: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link"});
    EXPECT_NE(facts(*cause(wsl, "wsl"), "confirms").find("this machine is WSL2"), std::string::npos) << wsl.dump(2);
    auto not_wsl =
        explain_json({"--root", kRoots + "/ubuntu2204-rtx4060ti", "ldconfig: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link"});
    EXPECT_NE(facts(*cause(not_wsl, "wsl"), "contradicts").find("not WSL2"), std::string::npos);
}

TEST(ExplainMachine, SavedSnapshotOfTheFailingMachineGivesTheSameAnswer) {
    TempDir tmp;
    auto snap = run_cudoctor({"check", "--root", kRoots + "/driver-mismatch", "--json"});
    ASSERT_TRUE(snap.exit_code == 0 || snap.exit_code == 1) << snap.err;
    const auto file = tmp.write("driver-mismatch.json", snap.out);
    auto doc = explain_json({"--snapshot", file.string(), "Failed to initialize NVML: Driver/library version mismatch"});
    EXPECT_EQ(doc["machine"], "snapshot " + file.string());
    EXPECT_NE(facts(*cause(doc, "driver-library-mismatch"), "confirms").find("535.183.01"), std::string::npos) << doc.dump(2);
}

TEST(ExplainMachine, UnsupportedGccUsesTheLimitFromTheMessage) {
    auto doc = explain_json({"--root", kRoots + "/ubuntu2204-rtx4060ti",
                             "/usr/local/cuda/include/crt/host_config.h:138:2: error: #error -- unsupported GNU version! "
                             "gcc versions later than 8 are not supported!"});
    const json* c = cause(doc, "gcc-too-new-for-toolkit");
    ASSERT_NE(c, nullptr);
    EXPECT_NE(facts(*c, "context").find("nvcc accepts gcc up to 8"), std::string::npos) << c->dump(2);
    EXPECT_NE(facts(*c, "confirms").find("newer than 8"), std::string::npos) << c->dump(2);
}

TEST(ExplainMachine, CausesNameTheRulesThatConfirmOrContradictThemOnTheMachine) {
    const std::string log = kErrorLogs + "/driver-library-mismatch/mozilla-translations-1167.log";
    auto broken = explain_json({"--root", kRoots + "/driver-mismatch", "--log", log});
    const json* c = cause(broken, "driver-library-mismatch");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ((*c)["rules"]["confirm"], json::array({"driver-library-mismatch"})) << c->dump(2);
    EXPECT_EQ((*c)["rules"]["contradict"], json::array()) << c->dump(2);
    EXPECT_NE(render_text_of({"--root", kRoots + "/driver-mismatch", "--log", log}).find("✓ check rule driver-library-mismatch fired"),
              std::string::npos);
    auto healthy = explain_json({"--root", kRoots + "/ubuntu2204-rtx4060ti", "--log", log});
    const json* h = cause(healthy, "driver-library-mismatch");
    ASSERT_NE(h, nullptr);
    EXPECT_EQ((*h)["rules"]["confirm"], json::array()) << h->dump(2);
    EXPECT_EQ((*h)["rules"]["contradict"], json::array({"driver-library-mismatch"})) << h->dump(2);
    // A cause without a rule of its own is confirmed by the rules that prove it.
    auto nouveau =
        explain_json({"--root", kRoots + "/nouveau", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."});
    const json* n = cause(nouveau, "nvidia-smi-missing");
    ASSERT_NE(n, nullptr);
    EXPECT_TRUE(find_by_value((*n)["rules"]["confirm"], "nouveau-loaded")) << n->dump(2);
    EXPECT_EQ((*n)["alias"], nullptr);
}

TEST(ExplainCli, RenamedCausesKeepTheirOldIdAsAnAlias) {
    auto doc = explain_json({"--no-machine", "Failed to initialize NVML: Driver/library version mismatch"});
    const json* c = cause(doc, "driver-library-mismatch");
    ASSERT_NE(c, nullptr) << doc.dump(2);
    EXPECT_EQ((*c)["alias"], "driver-lib-mismatch");
    EXPECT_EQ((*c)["layer"], "driver");
    // Not tied to a machine: no rule confirms or contradicts.
    EXPECT_EQ((*c)["rules"], json({{"confirm", json::array()}, {"contradict", json::array()}}));
}

TEST(ExplainCli, AKbOverrideCatalogMayStillUseAnOldCauseId) {
    TempDir kb;
    kb.write("error_catalog.tsv",
             "# source: a user's catalog written before the id registry\n"
             "pattern\tcause\tconfidence\tliteral\tregex\tcaptures\n"
             "site-gcc\tunsupported-gcc\thigh\tour build farm refuses\tour build farm refuses gcc (\\d+)\tgcc_max\n");
    auto doc = explain_json({"--kb", kb.str(), "--no-machine", "error: our build farm refuses gcc 14"});
    ASSERT_EQ(doc["causes"].size(), 1u) << doc.dump(2);
    EXPECT_EQ(doc["causes"][0]["id"], "gcc-too-new-for-toolkit");
    EXPECT_EQ(doc["causes"][0]["alias"], "unsupported-gcc");
    EXPECT_EQ(doc["causes"][0]["values"]["gcc_max"], json::array({"14"}));
}

TEST(ExplainCli, BinaryInputIsRefusedAsGrepWouldNotReadToItsEnd) {
    // /dev/zero never ends, a sparse file is gigabytes of NUL bytes: both are "binary", as for
    // grep, at the first NUL, exit 2.
    auto zero = run_cudoctor({"explain", "--log", "/dev/zero"});
    EXPECT_EQ(zero.exit_code, 2) << zero.err;
    EXPECT_NE(zero.err.find("/dev/zero: a binary file, not a log (a NUL byte at offset 0)"), std::string::npos) << zero.err;
    TempDir tmp;
    const auto sparse = tmp.path() / "sparse.log";
    { std::ofstream(sparse) << "RuntimeError: CUDA error: out of memory\n"; }
    std::filesystem::resize_file(sparse, std::uint64_t{4} << 30);  // 4 GiB, no blocks on disk
    auto big = run_cudoctor({"explain", "--log", sparse.string()});
    EXPECT_EQ(big.exit_code, 2) << big.err;
    EXPECT_NE(big.err.find("a NUL byte at offset 40"), std::string::npos) << big.err;
    auto json_error = run_cudoctor({"explain", "--json", "--log", "/dev/zero"});
    EXPECT_EQ(json_error.exit_code, 2);
    EXPECT_EQ(json::parse(json_error.out)["error"]["code"], "unparseable") << json_error.out;
}

}  // namespace cudoctor::test
