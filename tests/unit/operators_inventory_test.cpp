// `inventory`'s core and renderers on trace literals: counts and layers per operator, and the
// three kinds of attention (a custom operator, a Python autograd.Function, a CPU fallback in a
// run on the GPU, which this machine cannot record for real).
#include <gtest/gtest.h>

#include <sstream>

#include "formats/layer_trace.hpp"
#include "operators/inventory.hpp"
#include "operators/report.hpp"

namespace operators_inventory_test {

using namespace cudoctor;
using cudoctor::formats::OpKind;
using cudoctor::operators::Reason;

namespace {

formats::LayerTrace trace_of(const char* text) {
    auto t = formats::parse_layer_trace(text);
    EXPECT_TRUE(t) << (t ? "" : t.error().message);
    return t ? *t : formats::LayerTrace{};
}

// A GPU run: conv and matmul on cuda:0, a custom op, an autograd.Function, and aten::nonzero on
// the CPU in the layer "select" (a fallback), twice.
const char* kGpuRun = R"({"schema": 1, "torch": "2.4.0", "device": "cuda:0", "layers": [
  {"name": "conv", "devices": ["cuda:0"], "ops": [{"op": "aten::convolution", "kind": "aten", "count": 1, "devices": ["cuda:0"]}]},
  {"name": "fused", "devices": ["cuda:0"], "ops": [{"op": "mylib::fused_gelu", "kind": "custom", "count": 2, "devices": ["cuda:0"]}]},
  {"name": "clamp", "devices": ["cuda:0"], "ops": [{"op": "m.StraightThrough", "kind": "autograd.Function", "count": 1, "devices": ["cuda:0"]},
                                                   {"op": "aten::clamp", "kind": "aten", "count": 1, "devices": ["cuda:0"]}]},
  {"name": "select", "devices": ["cpu", "cuda:0"], "ops": [{"op": "aten::_to_copy", "kind": "aten", "count": 2, "devices": ["cpu", "cuda:0"]},
                                                           {"op": "aten::nonzero", "kind": "aten", "count": 1, "devices": ["cpu"]}]},
  {"name": "conv@1", "devices": ["cuda:0"], "ops": [{"op": "aten::convolution", "kind": "aten", "count": 1, "devices": ["cuda:0"]}]},
  {"name": "output", "devices": ["cuda:0"], "ops": [{"op": "prim::device", "kind": "prim", "count": 1, "devices": []}]}]})";

}  // namespace

TEST(Inventory, CountsEachOperatorWithTheLayersThatDispatchedIt) {
    const auto inv = operators::build_inventory(trace_of(kGpuRun), "gpu.safetensors");
    EXPECT_EQ(inv.device, "cuda:0");
    EXPECT_EQ(inv.module_calls, 6u);
    EXPECT_EQ(inv.operator_calls, 10u);
    ASSERT_EQ(inv.ops.size(), 7u);
    // Most calls first, then by name.
    EXPECT_EQ(inv.ops[0].name, "aten::_to_copy");
    EXPECT_EQ(inv.ops[1].name, "aten::convolution");
    EXPECT_EQ(inv.ops[1].count, 2u);
    EXPECT_EQ(inv.ops[1].layers, (std::vector<std::string>{"conv", "conv@1"}));
    EXPECT_EQ(inv.ops[2].name, "mylib::fused_gelu");
    EXPECT_EQ(inv.ops[2].kind, OpKind::custom);
    EXPECT_EQ(inv.ops[0].devices, (std::vector<std::string>{"cpu", "cuda:0"}));
}

TEST(Inventory, CustomOperatorsAutogradFunctionsAndCpuFallbacksNeedAttention) {
    const auto inv = operators::build_inventory(trace_of(kGpuRun), "gpu.safetensors");
    ASSERT_EQ(inv.attention.size(), 4u);
    EXPECT_EQ(inv.attention[0].reason, Reason::custom_operator);
    EXPECT_EQ(inv.attention[0].op, "mylib::fused_gelu");
    EXPECT_EQ(inv.attention[0].layers, std::vector<std::string>{"fused"});
    EXPECT_EQ(inv.attention[1].reason, Reason::autograd_function);
    EXPECT_EQ(inv.attention[1].op, "m.StraightThrough");
    // Both operators with a CPU tensor in the cuda:0 run, in the layer that did it.
    EXPECT_EQ(inv.attention[2].reason, Reason::cpu_fallback);
    EXPECT_EQ(inv.attention[2].op, "aten::_to_copy");
    EXPECT_EQ(inv.attention[3].op, "aten::nonzero");
    EXPECT_EQ(inv.attention[3].layers, std::vector<std::string>{"select"});
    EXPECT_EQ(operators::summary_line(inv), "7 operators, 1 custom, 1 autograd.Function, 2 CPU fallbacks: 4 need attention");
}

TEST(Inventory, ACpuRunHasNoFallbacks) {
    const auto inv = operators::build_inventory(trace_of(R"({"schema": 1, "device": "cpu", "layers": [{"name": "a", "devices": ["cpu"],
                     "ops": [{"op": "aten::nonzero", "kind": "aten", "count": 1, "devices": ["cpu"]}]}]})"),
                                                "cpu.json");
    EXPECT_TRUE(inv.attention.empty());
    std::ostringstream text;
    operators::render_text(inv, text, false);
    EXPECT_NE(text.str().find("Nothing needs attention"), std::string::npos) << text.str();
}

TEST(Inventory, WithoutADeviceTheMostCommonOneIsTheRuns) {
    const auto t = trace_of(R"({"schema": 1, "layers": [{"name": "a", "devices": ["cuda:0"]}, {"name": "b", "devices": ["cuda:0"]},
                                {"name": "c", "devices": ["cpu"], "ops": [{"op": "aten::sort", "kind": "aten", "count": 1, "devices": ["cpu"]}]}]})");
    EXPECT_EQ(operators::run_device(t), "cuda:0");
    const auto inv = operators::build_inventory(t, "t.json");
    ASSERT_EQ(inv.attention.size(), 1u);
    EXPECT_EQ(inv.attention[0].op, "aten::sort");
}

TEST(Inventory, RenderersNameEveryAttentionAndEscapeOutsideText) {
    auto t = trace_of(kGpuRun);
    t.layers[1].name = "fused|\x1b[31m";
    t.layers[1].ops[0].name = "mylib::fused`gelu";
    const auto inv = operators::build_inventory(t, "gpu.safetensors");
    std::ostringstream text, md;
    operators::render_text(inv, text, false);
    operators::render_markdown(inv, md);
    EXPECT_EQ(text.str().find('\x1b'), std::string::npos);
    EXPECT_NE(text.str().find("custom operator   mylib::fused`gelu in 1: fused|?[31m"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("CPU fallback      aten::nonzero in 1: select"), std::string::npos) << text.str();
    EXPECT_NE(md.str().find("| custom operator | ``mylib::fused`gelu`` | 1: fused\\|?[31m |"), std::string::npos) << md.str();
    const auto j = operators::to_json(inv);
    EXPECT_EQ(j["attention"].size(), 4u);
    EXPECT_EQ(j["operators"][1]["layers"], (nlohmann::json{"conv", "conv@1"}));
    EXPECT_EQ(j["gate"]["passed"], true);
}

}  // namespace operators_inventory_test
