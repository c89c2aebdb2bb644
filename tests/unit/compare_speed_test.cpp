// `compare`'s speed columns on trace literals: pairing layers through the name map, the ratio
// and the threshold, the total, and the layers that ran on another device than the rest.
#include <gtest/gtest.h>

#include <cmath>

#include "compare/speed.hpp"
#include "formats/layer_trace.hpp"

namespace compare_speed_test {

using namespace cudoctor;
using namespace cudoctor::compare;

namespace {

formats::LayerTrace trace_of(const std::string& text) {
    auto t = formats::parse_layer_trace(text);
    EXPECT_TRUE(t) << (t ? "" : t.error().message);
    return t ? *t : formats::LayerTrace{};
}

const std::string kTiming = R"("timing": {"clock": "monotonic", "warmup": 3, "repeat": 10})";

}  // namespace

TEST(CompareSpeed, RatioThresholdAndTotal) {
    const auto ref = trace_of(R"({"schema": 1, )" + kTiming + R"(, "layers": [
        {"name": "a", "type": "t.A", "time_ms": 1.0}, {"name": "b", "time_ms": 2.0}, {"name": "c", "time_ms": 0.0},
        {"name": "only_ref", "time_ms": 1.0}, {"name": "output", "time_ms": 4.0}]})");
    const auto test = trace_of(R"({"schema": 1, )" + kTiming + R"(, "layers": [
        {"name": "a", "time_ms": 1.5}, {"name": "b", "time_ms": 3.2}, {"name": "c", "time_ms": 0.5}, {"name": "output", "time_ms": 5.0}]})");
    const auto s = measure_speed(&ref, &test, NameMap{}, 1.5);
    ASSERT_TRUE(s.available) << s.missing;
    ASSERT_EQ(s.layers.size(), 4u);
    EXPECT_EQ(s.layers[0].name, "a");
    EXPECT_EQ(s.layers[0].type, "t.A");
    EXPECT_DOUBLE_EQ(s.layers[0].ratio(), 1.5);
    EXPECT_FALSE(s.layers[0].slower);  // exactly at the threshold is not over it
    EXPECT_TRUE(s.layers[1].slower);   // 1.6×
    EXPECT_TRUE(std::isinf(s.layers[2].ratio()));
    EXPECT_TRUE(s.layers[2].slower);
    EXPECT_EQ(s.slower_count(), 2u);
    ASSERT_TRUE(s.total);
    EXPECT_DOUBLE_EQ(s.total->ratio(), 1.25);
    EXPECT_EQ(s.ref_clock, "monotonic");
    EXPECT_EQ(s.test_repeat, 10u);
}

TEST(CompareSpeed, LayersArePairedThroughTheNameMap) {
    const auto ref = trace_of(R"({"schema": 1, )" + kTiming + R"(, "layers": [{"name": "enc.fc", "time_ms": 1.0}]})");
    const auto test = trace_of(R"({"schema": 1, )" + kTiming + R"(, "layers": [{"name": "_orig_mod.enc.fc", "time_ms": 3.0}]})");
    NameMap map;
    ASSERT_TRUE(map.add("*=_orig_mod.*"));
    const auto s = measure_speed(&ref, &test, map, 2.0);
    ASSERT_EQ(s.layers.size(), 1u);
    EXPECT_EQ(s.layers[0].test_name, "_orig_mod.enc.fc");
    EXPECT_TRUE(s.layers[0].slower);
    EXPECT_FALSE(s.total);
}

TEST(CompareSpeed, SaysWhichSideLacksTimes) {
    const auto timed = trace_of(R"({"schema": 1, )" + kTiming + R"(, "layers": []})");
    const auto untimed = trace_of(R"({"schema": 1, "layers": []})");
    EXPECT_EQ(measure_speed(&timed, nullptr, NameMap{}, 1.5).missing, "TEST has no layer trace");
    EXPECT_EQ(measure_speed(nullptr, nullptr, NameMap{}, 1.5).missing, "neither dump has a layer trace");
    EXPECT_EQ(measure_speed(&untimed, &timed, NameMap{}, 1.5).missing, "REF has no timings");
    EXPECT_FALSE(measure_speed(&untimed, &timed, NameMap{}, 1.5).available);
}

TEST(CompareSpeed, ALayerOnAnotherDeviceThanTheRestIsFlagged) {
    const auto t = trace_of(R"({"schema": 1, "device": "cuda:0", "layers": [
        {"name": "a", "devices": ["cuda:0"]}, {"name": "nms", "devices": ["cpu", "cuda:0"]}, {"name": "b", "devices": ["cuda:0"]},
        {"name": "no_tensors", "devices": []}]})");
    const auto off = off_device_layers(t, "TEST");
    ASSERT_EQ(off.size(), 1u);
    EXPECT_EQ(off[0].layer, "nms");
    EXPECT_EQ(off[0].devices, "cpu,cuda:0");
    EXPECT_EQ(off[0].usual, "cuda:0");
    EXPECT_EQ(off[0].side, "TEST");
    const auto same = trace_of(R"({"schema": 1, "layers": [{"name": "a", "devices": ["cpu"]}, {"name": "b", "devices": ["cpu"]}]})");
    EXPECT_TRUE(off_device_layers(same, "REF").empty());
    // Listed even when the other side has no trace.
    EXPECT_EQ(measure_speed(nullptr, &t, NameMap{}, 1.5).off_device.size(), 1u);
}

}  // namespace compare_speed_test
