// The real binary on two machine images: an RTX 5090 with torch 2.5.1+cu124 installed from pip
// without its .so files (check's framework-gpu-arch-unsupported and plan agree), and TensorFlow
// 2.13 beside torch's pip cuDNN 9 (tensorflow-cuda-mismatch suggests what works for 2.13).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test::torch_fixtures {
namespace {

using nlohmann::json;

std::string root(const std::string& scenario) { return std::string(CUDOCTOR_ROOTS_DIR) + "/" + scenario; }

json run_json(const std::vector<std::string>& args) {
    auto run = run_cudoctor(args);
    auto j = json::parse(run.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << run.describe() << "\n" << run.err << run.out;
    return j;
}

const json* finding(const json& check, const std::string& id) {
    for (const auto& f : check.at("findings"))
        if (f.value("id", "") == id) return &f;
    return nullptr;
}

std::string rejection(const json& plan, const std::string& option) {
    for (const auto& r : plan.at("rejected"))
        if (r.value("option", "") == option) return r.value("reason", "");
    return "(not rejected)";
}

/// A --kb folder whose pytorch_cuda.tsv has torch 2.5's cu124 row with `archs`, and 2.7 cu128.
std::string torch25_kb(const TempDir& dir, const std::string& archs) {
    dir.write("pytorch_cuda.tsv",
              "# source: a test\n"
              "torch\tvariant\tcuda\tstatus\tbundled_cudnn\tcuda_archs\tcuda_archs_aarch64\tpypi_default\tpython\tcxx_standard\t"
              "release_date\tconfidence\tnote\n"
              "2.5\tcu124\t12.4\tstable\t9.1.0.70\t" +
                  archs +
                  "\t\tyes\t>=3.9\tC++17\tOct 2024\thigh\t\n"
                  "2.7\tcu128\t12.8\texperimental\t9.7.1.26\t7.5;8.0;8.6;9.0;10.0;12.0\t\t\t>=3.9\tC++17\tApr 2025\thigh\t\n");
    return dir.str();
}

const std::string kRtx5090 = "ubuntu2404-rtx5090-torch25";

TEST(TorchRtx5090, MachineIsSeenAsItIs) {
    const auto c = run_json({"check", "--json", "--root", root(kRtx5090)});
    ASSERT_EQ(c.at("gpus").size(), 1u);
    EXPECT_EQ(c["gpus"][0]["compute_capability"], "12.0");
    ASSERT_EQ(c.at("frameworks").size(), 1u);
    EXPECT_EQ(c["frameworks"][0]["version"], "2.5.1+cu124");
    EXPECT_EQ(c["frameworks"][0]["cuda"], "12.4");
    EXPECT_TRUE(c["frameworks"][0].value("binary_archs", json::array()).empty()) << "the wheel's .so files are not on this machine";
    // Nothing else is wrong with this machine: a healthy 570 driver with the open modules.
    for (const auto& f : c.at("findings"))
        if (f.value("id", "") != "framework-gpu-arch-unsupported") {
            EXPECT_NE(f.value("severity", ""), "error") << f.dump(2);
        }
}

TEST(TorchRtx5090, WheelWithoutSm120OrPtxIsAnErrorAndPlanAgrees) {
    TempDir kb;
    const auto dir = torch25_kb(kb, "5.0;6.0;7.0;7.5;8.0;8.6;9.0");
    auto run = run_cudoctor({"check", "--json", "--root", root(kRtx5090), "--kb", dir});
    EXPECT_EQ(run.exit_code, 1) << run.err;
    const auto c = json::parse(run.out, nullptr, false);
    ASSERT_FALSE(c.is_discarded()) << run.out;
    const auto* f = finding(c, "framework-gpu-arch-unsupported");
    ASSERT_NE(f, nullptr) << c.at("findings").dump(2);
    EXPECT_EQ(f->value("severity", ""), "error");
    EXPECT_NE(f->value("fix", "").find(
                  "/home/erin/venv/bin/python -m pip install --upgrade torch --index-url https://download.pytorch.org/whl/cu128"),
              std::string::npos)
        << f->value("fix", "");
    const auto p = run_json({"plan", "--json", "--root", root(kRtx5090), "--kb", dir, "--framework", "torch==2.5"});
    EXPECT_EQ(rejection(p, "cu124"), "cu124 wheels lack sm_120 (they carry sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90)");
}

TEST(TorchRtx5090, UnknownListIsANoteAndPlanDoesNotChooseIt) {
    TempDir kb;
    const auto dir = torch25_kb(kb, "");
    const auto c = run_json({"check", "--json", "--root", root(kRtx5090), "--kb", dir});
    const auto* f = finding(c, "framework-gpu-arch-unsupported");
    ASSERT_NE(f, nullptr) << c.at("findings").dump(2);
    EXPECT_EQ(f->value("severity", ""), "info");
    const std::string reason =
        "is built with CUDA 12.4, which cannot target sm_120 (Blackwell; needs CUDA ≥ 12.8): it runs there only through PTX JIT "
        "compilation if the build ships PTX, and its architecture list is not in the knowledge base";
    EXPECT_NE(f->value("why", "").find(reason), std::string::npos) << f->value("why", "");
    const auto p = run_json({"plan", "--json", "--root", root(kRtx5090), "--kb", dir, "--framework", "torch==2.5"});
    EXPECT_EQ(rejection(p, "cu124"), "torch 2.5 (cu124) " + reason);
}

TEST(TorchRtx5090, BuiltInKbCheckAndPlanAgree) {
    // Whatever pytorch_cuda.tsv says of 2.5 cu124 today: an error where plan says the wheels lack
    // sm_120, a note where plan says only PTX could help, nothing where plan would choose it.
    const auto c = run_json({"check", "--json", "--root", root(kRtx5090)});
    const auto p = run_json({"plan", "--json", "--root", root(kRtx5090), "--framework", "torch==2.5"});
    const auto* f = finding(c, "framework-gpu-arch-unsupported");
    const std::string why = rejection(p, "cu124");
    if (why.starts_with("cu124 wheels lack sm_120")) {
        ASSERT_NE(f, nullptr);
        EXPECT_EQ(f->value("severity", ""), "error");
    } else if (why.find("only through PTX") != std::string::npos) {
        ASSERT_NE(f, nullptr);
        EXPECT_EQ(f->value("severity", ""), "info");
    } else {
        EXPECT_EQ(f, nullptr) << f->dump(2);
    }
    EXPECT_EQ(p.at("refused").value("nearest", ""), "torch 2.7 (cu128)") << p.dump(2);
}

const std::string kTf213 = "ubuntu2204-tf213-torch-cudnn9";

TEST(TorchTf213, NoAndCudaExtraForTensorflow213) {
    const auto c = run_json({"check", "--json", "--root", root(kTf213)});
    const json* tf = nullptr;
    for (const auto& fw : c.at("frameworks"))
        if (fw.value("name", "") == "tensorflow") tf = &fw;
    ASSERT_NE(tf, nullptr);
    EXPECT_EQ(tf->value("version", ""), "2.13.0");
    EXPECT_EQ(tf->value("cuda", ""), "11.8");
    const auto* f = finding(c, "tensorflow-cuda-mismatch");
    ASSERT_NE(f, nullptr) << c.at("findings").dump(2);
    const std::string fix = f->value("fix", "");
    EXPECT_EQ(fix.find("tensorflow[and-cuda]==2.13"), std::string::npos) << fix;
    EXPECT_NE(fix.find("TensorFlow 2.13.0 has no [and-cuda] extra (it starts at 2.14)"), std::string::npos) << fix;
    // The system route it was tested with: plan's steps (one source of install commands)...
    EXPECT_NE(fix.find("\ncudoctor plan --framework tensorflow==2.13\n"), std::string::npos) << fix;
    // ...or the smallest upgrade that has the extra.
    EXPECT_NE(fix.find("\n/usr/bin/python3 -m pip install 'tensorflow[and-cuda]==2.14.*'"), std::string::npos) << fix;
    // And that plan gives TensorFlow 2.13 its CUDA 11.8 and cuDNN 8.6 on this machine.
    const auto p = run_json({"plan", "--json", "--root", root(kTf213), "--framework", "tensorflow==2.13"});
    ASSERT_FALSE(p.contains("refused") && !p["refused"].is_null()) << p.dump(2);
    std::string commands;
    for (const auto& s : p.at("steps"))
        for (const auto& c : s.at("commands")) commands += c.get<std::string>() + "\n";
    EXPECT_NE(commands.find("cuda-toolkit-11-8"), std::string::npos) << commands;
    EXPECT_NE(commands.find("grep -m1 -E '^8\\.6\\.0\\.[0-9.]*-1\\+cuda11\\.'"), std::string::npos) << commands;
}

// torch's pip cuDNN 9 belongs to torch: TensorFlow 2.13 loads the system's cuDNN, so the wheel is
// not blamed on it.
TEST(TorchTf213, TorchPipCudnnIsNotBlamedOnTensorflow) {
    const auto c = run_json({"check", "--json", "--root", root(kTf213)});
    EXPECT_EQ(finding(c, "cudnn-cuda-mismatch"), nullptr) << c.at("findings").dump(2);
}

}  // namespace
}  // namespace cudoctor::test::torch_fixtures
