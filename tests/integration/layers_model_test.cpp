// The migration checklist on real models (tests/compare/layer_models.py, Debian's torch on the
// CPU): tools/record_layers.py records types, timings and operators; `inventory` marks the custom
// operator and the autograd.Function; `compare` shows each layer's time on both sides and flags
// the layer made slower on purpose; `--strict` fails on a layer only one dump has; the gate fails
// on a model made to produce NaN (and one that raises), naming the first layer.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/files.hpp"

namespace layers_model_test {

using cudoctor::test::run_cudoctor;
using nlohmann::json;

namespace {

#define NEED_DATA() \
    if (std::string(CUDOCTOR_COMPARE_DATA).empty()) GTEST_SKIP() << "no numpy/torch: layer traces not built"

std::string layers(const std::string& name) { return std::string(CUDOCTOR_COMPARE_DATA) + "/layers/" + name; }

json run_json(const std::vector<std::string>& args, int exit_code) {
    const auto r = run_cudoctor(args);
    EXPECT_EQ(r.exit_code, exit_code) << r.describe() << "\n" << r.out << r.err;
    return json::parse(r.out, nullptr, false);
}

const json* find_by(const json& list, const char* key, const std::string& value) {
    for (const auto& item : list)
        if (item[key] == value) return &item;
    return nullptr;
}

#ifdef CUDOCTOR_LAYER_MODELS
/// tools/record_layers.py on layer_models.py's `variant` of the CNN, as a user runs it.
cudoctor::test::RunResult record(const std::string& variant, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {std::string(CUDOCTOR_SOURCE_DIR) + "/tools/record_layers.py", CUDOCTOR_LAYER_MODELS};
    argv.insert(argv.end(), args.begin(), args.end());
    return cudoctor::test::run_program(CUDOCTOR_PYTHON, argv, {"PATH=/usr/bin:/bin", "LAYER_MODEL=cnn", "LAYER_VARIANT=" + variant},
                                       std::chrono::seconds(300));
}
#endif

}  // namespace

TEST(LayersModel, InventoryOfTheCnnMarksTheCustomOperatorAndTheAutogradFunction) {
    NEED_DATA();
    const json j = run_json({"inventory", layers("cnn_ref.safetensors"), "--json"}, 0);
    EXPECT_EQ(j["device"], "cpu");
    EXPECT_EQ(j["module_calls"], 12);
    EXPECT_TRUE(j["gate"]["passed"].get<bool>());
    const json* conv = find_by(j["operators"], "name", "aten::convolution");
    ASSERT_NE(conv, nullptr) << j.dump(1);
    EXPECT_EQ((*conv)["count"], 2);
    EXPECT_EQ((*conv)["layers"], (json{"features.0", "features.5"}));
    const json* custom = find_by(j["operators"], "name", "cudoctor_test::scale_shift");
    ASSERT_NE(custom, nullptr) << j.dump(1);
    EXPECT_EQ((*custom)["kind"], "custom");
    EXPECT_EQ((*custom)["layers"], json{"features.3"});
    const json* function = find_by(j["operators"], "name", "user_model.StraightThroughClamp");
    ASSERT_NE(function, nullptr) << j.dump(1);
    EXPECT_EQ((*function)["kind"], "autograd.Function");
    EXPECT_EQ((*function)["layers"], json{"features.7"});
    // Exactly those two need attention on a CPU run (no fallback is possible there).
    ASSERT_EQ(j["attention"].size(), 2u) << j["attention"].dump(1);
    EXPECT_EQ(j["attention"][0]["reason"], "custom operator");
    EXPECT_EQ(j["attention"][0]["operator"], "cudoctor_test::scale_shift");
    EXPECT_EQ(j["attention"][1]["reason"], "autograd.Function");
    EXPECT_EQ(j["attention"][1]["operator"], "user_model.StraightThroughClamp");
    // Every other operator is PyTorch's own.
    for (const auto& op : j["operators"]) {
        if (op["name"] == "cudoctor_test::scale_shift" || op["name"] == "user_model.StraightThroughClamp") continue;
        EXPECT_EQ(op["name"].get<std::string>().rfind("aten::", 0), 0u) << op.dump();
    }
}

TEST(LayersModel, InventoryReadsTheNpzSidecarAndPrintsTextAndMarkdown) {
    NEED_DATA();
    const auto text = run_cudoctor({"inventory", layers("cnn_ref.npz")});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("custom operator   cudoctor_test::scale_shift in 1: features.3 (user_model.ScaleShift)"), std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("autograd.Function user_model.StraightThroughClamp in 1: features.7 (user_model.Clamp)"), std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("0 CPU fallbacks: 2 need attention"), std::string::npos) << text.out;
    const auto md = run_cudoctor({"inventory", layers("cnn_ref.safetensors"), "--markdown"});
    ASSERT_EQ(md.exit_code, 0) << md.err;
    EXPECT_NE(md.out.find("| 2 | `aten::convolution` | aten | 2: features.0, features.5 |"), std::string::npos) << md.out;
    EXPECT_NE(md.out.find("| custom operator | `cudoctor_test::scale_shift` | 1: features.3 (user_model.ScaleShift) |"), std::string::npos)
        << md.out;
}

TEST(LayersModel, InventoryOfTheTransformerBlockCountsItsOperators) {
    NEED_DATA();
    const json j = run_json({"inventory", layers("block_ref.safetensors"), "--json"}, 0);
    const json* norm = find_by(j["operators"], "name", "aten::native_layer_norm");
    ASSERT_NE(norm, nullptr) << j.dump(1);
    EXPECT_EQ((*norm)["layers"], (json{"ln1", "ln2"}));
    const json* addmm = find_by(j["operators"], "name", "aten::addmm");
    ASSERT_NE(addmm, nullptr) << j.dump(1);
    EXPECT_EQ((*addmm)["layers"], (json{"mlp.0", "mlp.2"}));
    ASSERT_NE(find_by(j["operators"], "name", "aten::gelu"), nullptr) << j.dump(1);
    EXPECT_TRUE(j["attention"].empty()) << j["attention"].dump(1);
}

TEST(LayersModel, BothDumpsTimedGiveEachLayersTypeAndTimes) {
    NEED_DATA();
    const json j = run_json({"compare", layers("cnn_ref.safetensors"), layers("cnn_ref.npz"), "--json"}, 0);
    const json& speed = j["speed"];
    ASSERT_TRUE(speed["available"].get<bool>()) << speed.dump(1);
    EXPECT_EQ(speed["ref"]["clock"], "monotonic");
    EXPECT_EQ(speed["ref"]["repeat"], 10);
    EXPECT_EQ(speed["layers"].size(), 12u);
    const json* conv = find_by(speed["layers"], "name", "features.0");
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ((*conv)["type"], "torch.nn.modules.conv.Conv2d");
    EXPECT_GT((*conv)["ref_ms"].get<double>(), 0.0);
    EXPECT_GT((*conv)["test_ms"].get<double>(), 0.0);
    EXPECT_EQ(find_by(speed["layers"], "name", "features.3")->at("type"), "user_model.ScaleShift");
    // The model's own call is the whole forward pass, and it holds every layer's time.
    ASSERT_TRUE(speed["total"].is_object());
    EXPECT_EQ(speed["total"]["name"], "output");
    EXPECT_GE(speed["total"]["ref_ms"].get<double>(), (*conv)["ref_ms"].get<double>());
    EXPECT_TRUE(speed["off_device"].empty());
}

TEST(LayersModel, CompareShowsTimeColumnsAndFlagsTheLayerMadeSlower) {
    NEED_DATA();
    // Same weights, same values: the comparison passes, and features.2 (20 ms of sleep) is named.
    const json j = run_json({"compare", layers("cnn_ref.safetensors"), layers("cnn_slow.safetensors"), "--json"}, 0);
    EXPECT_EQ(j["summary"]["fail"], 0);
    const json& slower = j["speed"]["slower"];
    EXPECT_NE(std::find(slower.begin(), slower.end(), "features.2"), slower.end()) << slower.dump();
    const json* slow = find_by(j["speed"]["layers"], "name", "features.2");
    ASSERT_NE(slow, nullptr);
    EXPECT_GE((*slow)["test_ms"].get<double>(), 20.0);  // time.sleep(0.02) sleeps at least that long
    EXPECT_GT((*slow)["ratio"].get<double>(), 1.5);
    EXPECT_TRUE((*slow)["slower"].get<bool>());
    EXPECT_GE(j["speed"]["total"]["ratio"].get<double>(), 1.5);

    const auto text = run_cudoctor({"compare", layers("cnn_ref.safetensors"), layers("cnn_slow.safetensors")});
    EXPECT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("REF ms"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("TEST ms"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("TEST/REF"), std::string::npos) << text.out;
    const auto row = text.out.find("features.2  ReLU");
    ASSERT_NE(row, std::string::npos) << text.out;
    const auto row_end = text.out.find('\n', row);
    EXPECT_NE(text.out.substr(row, row_end - row).find("<- slower"), std::string::npos) << text.out.substr(row, row_end - row);
    EXPECT_NE(text.out.find("Total (the whole forward pass): REF "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("Slower than 1.50×: "), std::string::npos) << text.out;
    // A threshold above the slowdown names nothing.
    const json none = run_json({"compare", layers("cnn_ref.safetensors"), layers("cnn_slow.safetensors"), "--json", "--slower", "1e6"}, 0);
    EXPECT_TRUE(none["speed"]["slower"].empty()) << none["speed"]["slower"].dump();
}

TEST(LayersModel, PlotDrawsErrorAndTimeRatioInOneSvg) {
    NEED_DATA();
    const auto dir = std::filesystem::temp_directory_path() / ("cudoctor-layers-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string svg_path = (dir / "speed.svg").string();
    const auto r = run_cudoctor({"compare", layers("cnn_ref.safetensors"), layers("cnn_slow.safetensors"), "--plot", svg_path});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::string svg = cudoctor::test::slurp(svg_path);
    EXPECT_NE(svg.find("Relative error"), std::string::npos);
    EXPECT_NE(svg.find("Time per layer, TEST / REF"), std::string::npos);
    EXPECT_NE(svg.find("fill=\"#c00\"><title>features.2: REF "), std::string::npos) << svg;
    EXPECT_TRUE(svg.ends_with("</svg>\n"));
    std::filesystem::remove_all(dir);
}

TEST(LayersModel, StrictFailsOnALayerOnlyOneDumpHas) {
    NEED_DATA();
    const json plain = run_json({"compare", layers("cnn_ref.safetensors"), layers("cnn_extra.safetensors"), "--json"}, 0);
    EXPECT_EQ(plain["only_in_test"], json{"probe"});
    EXPECT_EQ(plain["summary"]["fail"], 0);
    const json strict = run_json({"compare", layers("cnn_ref.safetensors"), layers("cnn_extra.safetensors"), "--json", "--strict"}, 1);
    EXPECT_TRUE(strict["summary"]["failed"].get<bool>());
    const auto text = run_cudoctor({"compare", layers("cnn_extra.safetensors"), layers("cnn_ref.safetensors"), "--strict"});
    EXPECT_EQ(text.exit_code, 1) << text.err;
    EXPECT_NE(text.out.find("Only in REF (1): probe"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("; --strict: 1 in only one dump"), std::string::npos) << text.out;
    // Without a missing layer --strict changes nothing.
    run_json({"compare", layers("cnn_ref.safetensors"), layers("cnn_slow.safetensors"), "--json", "--strict"}, 0);
}

TEST(LayersModel, Bf16BlockIsHeldToTheToleranceOfItsDtypePair) {
    NEED_DATA();
    const json j = run_json({"compare", layers("block_ref.safetensors"), layers("block_bf16.safetensors"), "--json"}, 1);
    ASSERT_FALSE(j["tensors"].empty());
    for (const auto& t : j["tensors"]) {
        EXPECT_EQ(t["test"]["dtype"], "BF16");
        EXPECT_EQ(t["tolerance"]["rtol"], 1.6e-2) << t["name"];  // torch.testing's bf16 line, the looser of the pair
        EXPECT_EQ(t["tolerance"]["rel"], 1.6e-2) << t["name"];   // across precisions: the coarser rtol
    }
    EXPECT_TRUE(j["speed"]["available"].get<bool>());
}

TEST(LayersModel, AnUnreadableTraceIsOneClearErrorForInventory) {
    NEED_DATA();
    const auto plain = run_cudoctor({"inventory", std::string(CUDOCTOR_COMPARE_DATA) + "/dtypes_ref.safetensors"});
    EXPECT_EQ(plain.exit_code, 2);
    EXPECT_NE(plain.err.find("a safetensors file without a layer trace"), std::string::npos) << plain.err;
    const auto missing = run_cudoctor({"inventory", "/nonexistent/trace.json"});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_EQ(missing.err, "cudoctor inventory: /nonexistent/trace.json: no such file\n");
}

#ifdef CUDOCTOR_LAYER_MODELS
TEST(LayersGate, FailsOnNanNamingTheFirstLayer) {
    NEED_DATA();
    const auto r = record("nan", {"--gate-only"});
    EXPECT_EQ(r.exit_code, 1) << r.describe() << r.err;
    // RmsNorm's square root of a negative number: the first layer to finish with a NaN; the
    // layers after it inherit it.
    EXPECT_NE(r.err.find("record_layers: gate failed: layer 'features.6' (user_model.RmsNorm) output has 16384 NaN and 0 Inf"), std::string::npos)
        << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(LayersGate, FailsOnAnExceptionNamingTheLayerThatRaised) {
    NEED_DATA();
    const auto r = record("error", {"--gate-only"});
    EXPECT_EQ(r.exit_code, 1) << r.describe() << r.err;
    EXPECT_NE(r.err.find("record_layers: gate failed: layer 'features.6' (user_model.RmsNorm) raised RuntimeError: this layer's kernel "
                         "is not available"),
              std::string::npos)
        << r.err;
}

TEST(LayersGate, PassesOnTheHealthyModel) {
    NEED_DATA();
    const auto r = record("", {"--gate-only"});
    EXPECT_EQ(r.exit_code, 0) << r.describe() << r.err;
    EXPECT_EQ(r.out, "record_layers: gate passed: 12 module calls, every output finite\n");
}
#endif

}  // namespace layers_model_test
