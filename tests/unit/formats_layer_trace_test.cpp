// The layer trace tools/record_layers.py writes (schema 1): read from literal documents, every
// mistake one error naming its place.
#include <gtest/gtest.h>

#include "formats/layer_trace.hpp"

namespace formats_layer_trace_test {

using namespace cudoctor;
using namespace cudoctor::formats;

namespace {

const char* kTrace = R"({"schema": 1, "torch": "1.13.0a0", "device": "cpu", "dtype": null,
  "timing": {"clock": "monotonic", "warmup": 3, "repeat": 10, "statistic": "median", "unit": "ms"},
  "gate": {"passed": true, "layers_nonfinite": 0},
  "layers": [
    {"name": "features.3", "module": "features.3", "call": 0, "type": "m.ScaleShift", "devices": ["cpu"], "tensors": ["features.3"],
     "ops": [{"op": "cudoctor_test::scale_shift", "kind": "custom", "count": 1, "devices": ["cpu"]}], "time_ms": 0.0619},
    {"name": "features.7", "module": "features.7", "call": 0, "type": "m.Clamp", "devices": ["cpu"], "tensors": ["features.7"],
     "ops": [{"op": "m.StraightThroughClamp", "kind": "autograd.Function", "count": 1, "devices": ["cpu"]},
             {"op": "aten::clamp", "kind": "aten", "count": 1, "devices": ["cpu"]}], "time_ms": 0.0284},
    {"name": "output", "module": "output", "call": 0, "type": "m.SmallCnn", "devices": ["cpu"], "tensors": ["output"], "ops": [],
     "time_ms": 0.706, "something_new": [1, 2]}]})";

std::string error_of(std::string_view text) {
    auto t = parse_layer_trace(text);
    EXPECT_FALSE(t.has_value()) << text;
    return t ? std::string() : t.error().message;
}

}  // namespace

TEST(LayerTrace, ReadsLayersOperatorsTimesAndTheGate) {
    auto t = parse_layer_trace(kTrace);
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_EQ(t->torch, "1.13.0a0");
    EXPECT_EQ(t->device, "cpu");
    EXPECT_EQ(t->dtype, "");
    EXPECT_TRUE(t->timed());
    EXPECT_EQ(t->clock, "monotonic");
    EXPECT_EQ(t->repeat, 10u);
    EXPECT_EQ(t->warmup, 3u);
    EXPECT_TRUE(t->gate_passed);
    ASSERT_EQ(t->layers.size(), 3u);
    const auto& clamp = t->layers[1];
    EXPECT_EQ(clamp.name, "features.7");
    EXPECT_EQ(clamp.type, "m.Clamp");
    ASSERT_EQ(clamp.ops.size(), 2u);
    EXPECT_EQ(clamp.ops[0].kind, OpKind::autograd_function);
    EXPECT_EQ(clamp.ops[0].name, "m.StraightThroughClamp");
    EXPECT_EQ(clamp.ops[1].kind, OpKind::aten);
    EXPECT_EQ(t->layers[0].ops[0].kind, OpKind::custom);
    ASSERT_TRUE(clamp.time_ms);
    EXPECT_DOUBLE_EQ(*clamp.time_ms, 0.0284);
    EXPECT_EQ(t->find("output"), &t->layers[2]);
    EXPECT_EQ(t->find("nothing"), nullptr);
}

TEST(LayerTrace, WithoutTimingOrGateIsUntimedAndPassed) {
    auto t = parse_layer_trace(R"({"schema": 1, "layers": [{"name": "a"}]})");
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_FALSE(t->timed());
    EXPECT_TRUE(t->gate_passed);
    EXPECT_FALSE(t->layers[0].time_ms);
}

TEST(LayerTrace, AFailedGateNamesItsLayer) {
    auto t = parse_layer_trace(R"({"schema": 1, "gate": {"passed": false, "layer": "features.6", "nan": 2048, "inf": 0}, "layers": []})");
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_FALSE(t->gate_passed);
    EXPECT_EQ(t->gate_layer, "features.6");
    EXPECT_EQ(t->gate_nan, 2048u);
}

TEST(LayerTrace, EveryMistakeIsOneErrorWithItsPlace) {
    EXPECT_EQ(error_of("[1]"), "not a JSON object, but array");
    EXPECT_EQ(error_of("{}"), "not a layer trace: no 'schema' number");
    EXPECT_EQ(error_of(R"({"schema": 2, "layers": []})"), "layer trace schema 2: this cudoctor reads schema 1");
    EXPECT_EQ(error_of(R"({"schema": 1})"), "'layers' is missing");
    EXPECT_EQ(error_of(R"({"schema": 1, "layers": {}})"), "'layers' is not a list");
    EXPECT_EQ(error_of(R"({"schema": 1, "layers": [7]})"), "layers[0] is not an object");
    EXPECT_EQ(error_of(R"({"schema": 1, "layers": [{"type": "x"}]})"), "layers[0]: 'name' is missing");
    EXPECT_EQ(error_of(R"({"schema": 1, "layers": [{"name": "a", "ops": 3}]})"), "layers[0]: 'ops' is not a list");
    EXPECT_EQ(error_of(R"({"schema": 1, "layers": [{"name": "a", "ops": [{"op": "x::y", "kind": "cuda"}]}]})"),
              "layers[0].ops[0]: unknown operator kind 'cuda' (aten, prim, custom or autograd.Function)");
    EXPECT_EQ(error_of(R"({"schema": 1, "layers": [{"name": "a", "ops": [{"op": "x::y", "kind": "aten", "count": -1}]}]})"),
              "layers[0].ops[0]: 'count' is not a count");
    EXPECT_EQ(error_of(R"({"schema": 1, "layers": [{"name": "a", "time_ms": -1}]})"), "layers[0]: time_ms -1 is not a time");
    EXPECT_EQ(error_of(R"({"schema": 1, "layers": [{"name": "a"}, {"name": "a"}]})"), "layers[1]: a second layer named 'a'");
    EXPECT_EQ(error_of(R"({"schema": 1, "layers": [{"name": "a", "devices": ["cpu", 1]}]})"), "layers[0]: 'devices' holds a non-string");
    EXPECT_EQ(error_of(R"({"schema": 1, "timing": {"repeat": 3}, "layers": []})"), "timing: 'clock' is missing");
    EXPECT_EQ(error_of(R"({"schema": 1, "gate": {"passed": false}, "layers": []})"), "gate: 'layer' is missing");
    EXPECT_TRUE(error_of(R"({"schema": 1, "layers": [)").starts_with("not valid JSON"));
}

TEST(LayerTrace, FoundInSafetensorsMetadataByItsKey) {
    EXPECT_FALSE(layer_trace_in_metadata({{"producer", "other tool"}}).has_value());
    const auto found = layer_trace_in_metadata({{"cudoctor.layers", R"({"schema": 1, "layers": []})"}});
    ASSERT_TRUE(found.has_value());
    EXPECT_TRUE(found->has_value());
    const auto bad = layer_trace_in_metadata({{"cudoctor.layers", "{"}});
    ASSERT_TRUE(bad.has_value());
    ASSERT_FALSE(bad->has_value());
    EXPECT_TRUE(bad->error().message.starts_with("__metadata__[\"cudoctor.layers\"]: not valid JSON")) << bad->error().message;
}

}  // namespace formats_layer_trace_test
