// `cudoctor compare` on what users compare: a small Transformer-like model recorded by the shipped
// tools/record_layers.py (forward hooks, torch 1.13 on the CPU) in float32, in bfloat16, and with
// one layer's computation changed — and on malformed dumps, which must give one clear error.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/files.hpp"

using cudoctor::test::run_cudoctor;
using nlohmann::json;

namespace {

#define NEED_DATA() \
    if (std::string(CUDOCTOR_COMPARE_DATA).empty()) GTEST_SKIP() << "no numpy/torch: compare test data not built"

std::string model_dump(const std::string& name) { return std::string(CUDOCTOR_COMPARE_DATA) + "/" + name; }
std::string corpus_file(const std::string& kind, const std::string& name) {
    return std::string(CUDOCTOR_SOURCE_DIR) + "/fuzz/corpus/" + kind + "/" + name;
}

json run_json(const std::vector<std::string>& args, int exit_code) {
    const auto r = run_cudoctor(args);
    EXPECT_EQ(r.exit_code, exit_code) << r.describe() << "\n" << r.out << r.err;
    return json::parse(r.out, nullptr, false);
}

std::string temp_file(const std::string& name, const std::string& content) {
    const auto dir = std::filesystem::temp_directory_path() / ("cudoctor-compare-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto path = (dir / name).string();
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << content;
    return path;
}

}  // namespace

TEST(CompareModel, SameRunPassesEveryLayer) {
    NEED_DATA();
    const json j = run_json({"compare", model_dump("tt_ref.safetensors"), model_dump("tt_ref.npz"), "--json"}, 0);
    EXPECT_EQ(j["summary"]["pass"], 52);
    EXPECT_EQ(j["summary"]["fail"], 0);
    EXPECT_TRUE(j["first_failure"].is_null());
    EXPECT_EQ(j["tensors"][0]["name"], "embed");  // execution order: hooks fire as modules finish
    EXPECT_EQ(j["tensors"].back()["name"], "output");
}

TEST(CompareModel, TheChangedLayerIsTheFirstFailure) {
    NEED_DATA();
    const json j = run_json({"compare", model_dump("tt_ref.safetensors"), model_dump("tt_tanh.safetensors"), "--json"}, 1);
    // Block 2's GELU uses the tanh approximation: every layer before it is bit-identical.
    EXPECT_EQ(j["first_failure"], "blocks.2.mlp.1");
    for (const auto& t : j["tensors"]) {
        if (t["name"] == "blocks.2.mlp.1") break;
        EXPECT_EQ(t["status"], "PASS") << t["name"];
        EXPECT_EQ(t["max_abs"], 0.0) << t["name"];
    }
}

TEST(CompareModel, Bf16ErrorAccumulatesThroughTheBlocks) {
    NEED_DATA();
    const json j = run_json({"compare", model_dump("tt_ref.safetensors"), model_dump("tt_bf16.safetensors"), "--json"}, 1);
    std::map<std::string, double> rel;
    for (const auto& t : j["tensors"]) {
        rel[t["name"]] = t["rel"].get<double>();
        EXPECT_EQ(t["test"]["dtype"], "BF16");
        EXPECT_EQ(t["ref"]["dtype"], "F32");
    }
    // The residual stream after each block drifts further from float32.
    EXPECT_LT(rel["embed"], rel["blocks.0"]);
    EXPECT_LT(rel["blocks.0"], rel["blocks.1"]);
    EXPECT_LT(rel["blocks.1"], rel["blocks.2"]);
    EXPECT_LT(rel["blocks.2"], rel["blocks.3"]);
    EXPECT_GT(rel["output"], 3 * rel["embed"]);
    // The embedding is only rounded to bf16 (at most 2^-8 relative): it passes; the first
    // failure is inside block 0, where bf16 arithmetic begins.
    EXPECT_EQ(j["tensors"][0]["status"], "PASS");
    EXPECT_EQ(j["tensors"][0]["notes"][0], "dtype BF16 in TEST, F32 in REF (compared at the looser tolerance)");
    ASSERT_TRUE(j["first_failure"].is_string());
    EXPECT_TRUE(j["first_failure"].get<std::string>().starts_with("blocks.0.")) << j["first_failure"];
}

TEST(CompareModel, NpzWidensBf16ToFloat32AndGivesTheSameNumbers) {
    NEED_DATA();
    const json st = run_json({"compare", model_dump("tt_ref.safetensors"), model_dump("tt_bf16.safetensors"), "--json"}, 1);
    const json npz = run_json({"compare", model_dump("tt_ref.npz"), model_dump("tt_bf16.npz"), "--json"}, 1);
    ASSERT_EQ(st["tensors"].size(), npz["tensors"].size());
    for (std::size_t i = 0; i < st["tensors"].size(); ++i) {
        EXPECT_EQ(npz["tensors"][i]["test"]["dtype"], "F32");
        EXPECT_EQ(st["tensors"][i]["max_abs"], npz["tensors"][i]["max_abs"]) << st["tensors"][i]["name"];
    }
}

TEST(CompareModel, ABf16RunSavedAsFloat32IsJudgedAtBf16sTolerance) {
    NEED_DATA();
    // numpy has no bfloat16: the npz holds the bf16 run widened to F32. Its values still carry
    // only bf16's 8 significant bits, so the layers are held to the same line as the
    // safetensors pair (F32 against BF16), not to float32's 1.3e-6.
    const json st = run_json({"compare", model_dump("tt_ref.safetensors"), model_dump("tt_bf16.safetensors"), "--json"}, 1);
    const json npz = run_json({"compare", model_dump("tt_ref.npz"), model_dump("tt_bf16.npz"), "--json"}, 1);
    ASSERT_EQ(st["tensors"].size(), npz["tensors"].size());
    std::size_t passed = 0;
    for (std::size_t i = 0; i < st["tensors"].size(); ++i) {
        const auto& a = st["tensors"][i];
        const auto& b = npz["tensors"][i];
        EXPECT_EQ(a["status"], b["status"]) << a["name"];
        EXPECT_EQ(a["tolerance"], b["tolerance"]) << a["name"];
        passed += b["status"] == "PASS";
    }
    EXPECT_GT(passed, 0u);
    EXPECT_EQ(npz["first_failure"], st["first_failure"]);
    EXPECT_EQ(npz["tensors"][0]["notes"][0],
              "TEST's F32 values are all BF16 values (a lower-precision run saved as F32): compared at the looser tolerance");
    // The float32 reference against itself stays at float32's line.
    const json same = run_json({"compare", model_dump("tt_ref.npz"), model_dump("tt_ref.npz"), "--json"}, 0);
    EXPECT_EQ(same["tensors"][0]["tolerance"]["rtol"], 1.3e-6);
    EXPECT_TRUE(same["tensors"][0]["notes"].empty());
    // The text report says which line it used, and why.
    const auto text = run_cudoctor({"compare", model_dump("tt_ref.npz"), model_dump("tt_bf16.npz")});
    EXPECT_NE(text.out.find("TEST's F32 values are all BF16 values (a lower-precision run saved as F32): compared at the looser "
                            "tolerance (" +
                            std::to_string(npz["tensors"].size()) + " tensors)"),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("tolerance: rtol 1.60e-02, atol 1.00e-05, layer limit 1.60e-02"), std::string::npos) << text.out;
}

TEST(CompareModel, PlotShowsEveryLayerAndTheToleranceLine) {
    NEED_DATA();
    const std::string svg_path = temp_file("plot.svg", "");
    const auto r = run_cudoctor({"compare", model_dump("tt_ref.safetensors"), model_dump("tt_tanh.safetensors"), "--plot", svg_path});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    const std::string svg = cudoctor::test::slurp(svg_path);
    EXPECT_TRUE(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    EXPECT_NE(svg.find("first failure: blocks.2.mlp.1"), std::string::npos);
    EXPECT_NE(svg.find("tolerance (layer limit)"), std::string::npos);
    std::size_t points = 0;
    for (std::size_t at = 0; (at = svg.find("<title>#", at)) != std::string::npos; ++at) ++points;
    EXPECT_EQ(points, 52u);
    EXPECT_TRUE(svg.ends_with("</svg>\n"));
}

TEST(CompareModel, TolerancesFromTheCommandLineAndPerLayer) {
    NEED_DATA();
    // Loose enough for the whole bf16 run...
    run_json({"compare", model_dump("tt_ref.safetensors"), model_dump("tt_bf16.safetensors"), "--json", "--rtol", "0.5", "--atol", "0.5"}, 0);
    // ...but a per-layer rule tightens the head again.
    const std::string rules = temp_file("tol.txt", "# the logits must stay close\nhead rtol=1e-6 atol=1e-7\noutput skip\n");
    const json j = run_json({"compare", model_dump("tt_ref.safetensors"), model_dump("tt_bf16.safetensors"), "--json", "--rtol", "0.5",
                             "--atol", "0.5", "--tolerances", rules},
                            1);
    EXPECT_EQ(j["first_failure"], "head");
    EXPECT_EQ(j["summary"]["skipped"], 1);
}

TEST(CompareModel, RenamedLayersMapAndUnmatchedNamesAreListed) {
    NEED_DATA();
    const json none = run_json({"compare", model_dump("tt_ref.safetensors"), model_dump("dtypes_ref.safetensors"), "--json"}, 2);
    EXPECT_EQ(none["error"]["message"].get<std::string>().substr(0, 29), "no tensor names in common (RE");
    const json mapped =
        run_json({"compare", model_dump("tt_ref.safetensors"), model_dump("dtypes_test.safetensors"), "--json", "--map", "embed=f32_close"},
                 1);
    ASSERT_EQ(mapped["tensors"].size(), 1u);
    EXPECT_EQ(mapped["tensors"][0]["test_name"], "f32_close");
    EXPECT_EQ(mapped["only_in_ref"].size(), 51u);
    EXPECT_EQ(mapped["only_in_test"].size(), 27u);
}

TEST(CompareBadInput, MalformedDumpsGiveOneClearError) {
    const std::pair<std::string, std::string> cases[] = {
        {corpus_file("safetensors", "header_past_end.safetensors"), "header_past_end.safetensors: header length"},
        {corpus_file("safetensors", "offsets_outside.safetensors"),
         "offsets_outside.safetensors: tensor 'a': data offsets [0, 4000] outside the data (16 bytes)"},
        {corpus_file("safetensors", "shape_mismatch.safetensors"),
         "shape_mismatch.safetensors: tensor 'a': shape [3] of F32 needs 12 bytes, the offsets hold 16"},
        {corpus_file("safetensors", "huge_shape.safetensors"), "needs more than 2^64 bytes"},
        {corpus_file("npy", "truncated_data.npy"), "truncated_data.npy: shape [2, 3] of <f4 needs 24 bytes, the file holds 21"},
        {corpus_file("npz", "forged_size.npz"), "more than deflate can encode"},
        {corpus_file("npz", "truncated.npz"), "not a zip archive"},
        {"/nonexistent/dump.safetensors", "/nonexistent/dump.safetensors: no such file or folder"},
    };
    const std::string good = corpus_file("safetensors", "torch_mixed.safetensors");
    for (const auto& [path, message] : cases) {
        const auto r = run_cudoctor({"compare", good, path});
        EXPECT_EQ(r.exit_code, 2) << path << ": " << r.describe();
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    const json j = run_json({"compare", good, corpus_file("npy", "fortran.npy"), "--json"}, 2);
    EXPECT_EQ(j["error"]["code"], "unsupported");
    const std::string empty_dir = std::filesystem::path(temp_file("empty/.keep", "")).parent_path();
    const auto r = run_cudoctor({"compare", good, empty_dir});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "cudoctor compare: " + empty_dir + ": a folder without .npy files\n");
    const auto bad_map = run_cudoctor({"compare", good, good, "--map", "a*b=c"});
    EXPECT_EQ(bad_map.exit_code, 2);
    EXPECT_EQ(bad_map.err, "cudoctor compare: map rule 'a*b=c': '*' may only end both sides (a prefix rule)\n");
}
