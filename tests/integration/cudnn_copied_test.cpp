// check on machines where cuDNN was copied into a toolkit folder: the CUDA a copy is built for is
// read from its own libraries (the cuBLAS its sub-libraries link), never from the folder it was
// copied into, and no fix copies cuDNN across CUDA majors (tests/fixtures/README.md tells each
// machine's story).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/files.hpp"
#include "support/json_query.hpp"
#include "support/mutable_root.hpp"

namespace cudoctor::test {
namespace {

using nlohmann::json;

const std::string kCopied = "ubuntu2204-cudnn8-copied-cuda12";

RunResult check_root(const std::string& scenario, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"check", "--root", std::string(CUDOCTOR_ROOTS_DIR) + "/" + scenario};
    args.insert(args.end(), extra.begin(), extra.end());
    auto run = run_cudoctor(args);
    EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.describe() << "\n" << run.err;
    return run;
}

json check_json(const std::string& scenario) { return json::parse(check_root(scenario, {"--json"}).out); }

const json* toolkit_cudnn(const json& snap, const std::string& toolkit) {
    for (const auto& c : snap["cudnn"])
        if (c["location"] == "toolkit" && c["path"].get<std::string>().starts_with(toolkit)) return &c;
    return nullptr;
}

// ubuntu2204-rtx4060ti's cuDNN 9.1.0, whose precompiled engines name libcublasLt.so.12.
const std::string kRtx = "ubuntu2204-rtx4060ti";
const std::string kRtxLib = "/usr/local/cuda-12.4/targets/x86_64-linux/lib";

// Its engines library with each CUDA 12 name made a CUDA 13 one (same length, same ELF): the
// same library as a CUDA 13 build would name them.
std::string engines_for_cuda13() {
    std::string bytes = slurp(std::string(CUDOCTOR_ROOTS_DIR) + "/" + kRtx + kRtxLib + "/libcudnn_engines_precompiled.so.9.1.0");
    int replaced = 0;
    for (const std::string name : {"libcublasLt.so.1", "libnvrtc.so.1"})
        for (auto at = bytes.find(name + "2"); at != std::string::npos; at = bytes.find(name + "2", at + 1)) {
            bytes[at + name.size()] = '3';
            ++replaced;
        }
    EXPECT_GE(replaced, 2);
    return bytes;
}

bool has_cudnn_note(const json& snap, const std::string& probe, const std::string& text) {
    for (const auto& n : snap["notes"])
        if (n["probe"] == probe && n["message"].get<std::string>().find(text) != std::string::npos) return true;
    return false;
}

std::string opens_evidence(const json& cudnn) {
    for (const auto& e : cudnn["evidence"])
        if (e["detail"].get<std::string>().starts_with("opens "))
            return e["source"].get<std::string>() + ": " + e["detail"].get<std::string>();
    return "";
}

}  // namespace

TEST(CudnnCopied, TwoEnginesReleasesBuiltForDifferentCudaAreAMixedCopy) {
    MutableRoot root(kRtx);
    root.write(kRtxLib + "/libcudnn_engines_precompiled.so.9.0.0", engines_for_cuda13());
    const auto snap = root.check();
    const json* c = toolkit_cudnn(snap, "/usr/local/cuda-12.4");
    ASSERT_NE(c, nullptr) << snap["cudnn"].dump(2);
    EXPECT_EQ((*c)["cuda_major"], "") << c->dump(2);  // neither CUDA 12 nor 13: say nothing
    EXPECT_TRUE(has_cudnn_note(snap, "cudnn", "name CUDA 13 and CUDA 12 libraries: a mixed copy")) << snap["notes"].dump(2);
}

TEST(CudnnCopied, ThePrecompiledEnginesDecideBeforeTheGraphLibraryIsRead) {
    // The graph library is read only when no engines library names a CUDA library.
    MutableRoot root(kRtx);
    root.write(kRtxLib + "/libcudnn_graph.so.9.1.0", engines_for_cuda13());
    const auto snap = root.check();
    const json* c = toolkit_cudnn(snap, "/usr/local/cuda-12.4");
    ASSERT_NE(c, nullptr) << snap["cudnn"].dump(2);
    EXPECT_EQ((*c)["cuda_major"], "12");
    EXPECT_EQ(opens_evidence(*c), kRtxLib + "/libcudnn_engines_precompiled.so.9.1.0: opens libcublasLt.so.12");
}

TEST(CudnnCopied, WithoutPrecompiledEnginesTheGraphLibraryNamesTheCuda) {
    MutableRoot root(kRtx);
    root.remove(kRtxLib + "/libcudnn_engines_precompiled.so.9.1.0").write(kRtxLib + "/libcudnn_graph.so.9.1.0", engines_for_cuda13());
    const auto snap = root.check();
    const json* c = toolkit_cudnn(snap, "/usr/local/cuda-12.4");
    ASSERT_NE(c, nullptr) << snap["cudnn"].dump(2);
    EXPECT_EQ((*c)["cuda_major"], "13");
    EXPECT_EQ(opens_evidence(*c), kRtxLib + "/libcudnn_graph.so.9.1.0: opens libcublasLt.so.13");
}

TEST(CudnnCopied, TheCopysCudaMajorComesFromTheCublasItLinks) {
    const auto snap = check_json(kCopied);
    const json* c = toolkit_cudnn(snap, "/usr/local/cuda-12.4");
    ASSERT_NE(c, nullptr) << snap["cudnn"].dump(2);
    EXPECT_EQ((*c)["version"], "8.9.7");
    EXPECT_EQ((*c)["cuda_major"], "11");  // not the folder's 12
    bool linked = false;
    for (const auto& e : (*c)["evidence"]) linked = linked || e["detail"].get<std::string>().find("libcublas") != std::string::npos;
    EXPECT_TRUE(linked) << c->dump(2);
}

TEST(CudnnCopied, CheckSaysItIsACuda11BuildInACuda12Toolkit) {
    const auto snap = check_json(kCopied);
    const json* f = finding(snap, "cudnn-cuda-mismatch");
    ASSERT_NE(f, nullptr) << snap["findings"].dump(2);
    EXPECT_EQ((*f)["severity"], "error");
    const std::string title = (*f)["title"];
    EXPECT_NE(title.find("cuDNN 8.9.7 at /usr/local/cuda-12.4/targets/x86_64-linux/lib is built for CUDA 11"), std::string::npos) << title;
    EXPECT_NE(title.find("is CUDA 12"), std::string::npos) << title;
    const std::string fix = (*f)["fix"];
    EXPECT_NE(fix.find("grep -m1 -E '^8\\.9\\.7\\.[0-9.]*-1\\+cuda12\\.'"), std::string::npos)
        << fix;  // the CUDA 12 build of the same release
    EXPECT_EQ(fix.find("cuda11"), std::string::npos) << fix;
    // The text report labels the copy by what it is built for.
    const std::string text = check_root(kCopied).out;
    EXPECT_NE(text.find("for CUDA 11"), std::string::npos) << text;
    EXPECT_EQ(text.find("for CUDA 12"), std::string::npos) << text;
}

TEST(CudnnCopied, ACopyWhoseLibrariesSayNothingKeepsItsCudaUnknown) {
    // toolkits-repo-driver: cuDNN 8.9.7 in the 11.8 toolkit, a stub library naming no cuBLAS.
    const auto snap = check_json("toolkits-repo-driver");
    const json* c = toolkit_cudnn(snap, "/usr/local/cuda-11.8");
    ASSERT_NE(c, nullptr) << snap["cudnn"].dump(2);
    EXPECT_EQ((*c)["cuda_major"], "");  // not the folder's 11
    EXPECT_EQ(finding(snap, "cudnn-cuda-mismatch"), nullptr) << snap["findings"].dump(2);
}

TEST(CudnnCopied, ACudnn9CopyNamesTheCublasLtItOpens) {
    // ubuntu2204-rtx4060ti: cuDNN 9.1.0 in the 12.4 toolkit; its engines library names libcublasLt.so.12.
    const auto snap = check_json("ubuntu2204-rtx4060ti");
    const json* c = toolkit_cudnn(snap, "/usr/local/cuda-12.4");
    ASSERT_NE(c, nullptr) << snap["cudnn"].dump(2);
    EXPECT_EQ((*c)["cuda_major"], "12");
    bool opens = false;
    for (const auto& e : (*c)["evidence"]) opens = opens || e["detail"] == "opens libcublasLt.so.12";
    EXPECT_TRUE(opens) << c->dump(2);
}

TEST(CudnnCopied, MissingInDefaultToolkitInstallsForTheDefaultsCudaInsteadOfCopying) {
    // toolkits-repo-driver: cuDNN 8.9.7 only in the 11.8 toolkit, /usr/local/cuda -> 12.4.
    const auto snap = check_json("toolkits-repo-driver");
    const json* f = finding(snap, "cudnn-missing-in-default-toolkit");
    ASSERT_NE(f, nullptr) << snap["findings"].dump(2);
    const std::string fix = (*f)["fix"];
    EXPECT_EQ(fix.find("cp "), std::string::npos) << fix;
    EXPECT_EQ(fix.find("-cuda-N"), std::string::npos) << fix;
    EXPECT_NE(fix.find("-1\\+cuda12\\.')"), std::string::npos) << fix;
}

}  // namespace cudoctor::test
