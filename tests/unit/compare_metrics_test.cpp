// The numeric core of `compare`: the widening of every element type (exact, against values worked
// out by hand from the formats' definitions), the metrics on small vectors, the thread-count
// invariance, tolerances and the name map.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "compare/convert.hpp"
#include "compare/matching.hpp"
#include "compare/metrics.hpp"
#include "compare/precision.hpp"
#include "compare/tolerance.hpp"

// In a namespace of its own: a global using-directive for cudoctor::compare would hide any
// `compare(…)` of a header a later file of the unity build includes (fmt's bigint).
namespace compare_metrics_test {

using namespace cudoctor;
using namespace cudoctor::compare;
using formats::DType;
using formats::TensorView;

namespace {

template <class T>
TensorView view(const std::vector<T>& v, DType dtype, std::vector<std::uint64_t> shape = {}) {
    if (shape.empty()) shape = {v.size()};
    return {"t", dtype, std::move(shape), std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T))};
}

}  // namespace

TEST(CompareConvert, HalfPrecisionIncludingSubnormalsInfAndNan) {
    EXPECT_EQ(f16_to_float(0x3c00), 1.0f);
    EXPECT_EQ(f16_to_float(0xc000), -2.0f);
    EXPECT_EQ(f16_to_float(0x7bff), 65504.0f);                  // largest finite
    EXPECT_EQ(f16_to_float(0x0400), std::ldexp(1.0f, -14));     // smallest normal
    EXPECT_EQ(f16_to_float(0x0001), std::ldexp(1.0f, -24));     // smallest subnormal
    EXPECT_EQ(f16_to_float(0x03ff), std::ldexp(1023.0f, -24));  // largest subnormal
    EXPECT_EQ(f16_to_float(0x7c00), std::numeric_limits<float>::infinity());
    EXPECT_EQ(f16_to_float(0xfc00), -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(f16_to_float(0x7e00)));
    EXPECT_TRUE(std::isnan(f16_to_float(0xfc01)));
    EXPECT_TRUE(std::signbit(f16_to_float(0x8000)));
    EXPECT_EQ(f16_to_float(0x8000), 0.0f);
    EXPECT_EQ(f16_to_float(0x3555), std::ldexp(1.0f + 341 / 1024.0f, -2));  // exponent 13, mantissa 0x155
}

TEST(CompareConvert, BFloat16IsTheTopHalfOfAFloat) {
    EXPECT_EQ(bf16_to_float(0x3f80), 1.0f);
    EXPECT_EQ(bf16_to_float(0x4049), 3.140625f);
    EXPECT_EQ(bf16_to_float(0x0001), std::ldexp(1.0f, -133));  // a float32 subnormal
    EXPECT_EQ(bf16_to_float(0xff80), -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(bf16_to_float(0x7fc1)));
}

TEST(CompareConvert, Float8) {
    EXPECT_EQ(f8_e4m3_to_float(0x38), 1.0f);
    EXPECT_EQ(f8_e4m3_to_float(0x7e), 448.0f);  // the largest e4m3fn value
    EXPECT_EQ(f8_e4m3_to_float(0x01), std::ldexp(1.0f, -9));
    EXPECT_TRUE(std::isnan(f8_e4m3_to_float(0x7f)));
    EXPECT_TRUE(std::isnan(f8_e4m3_to_float(0xff)));
    EXPECT_EQ(f8_e4m3_to_float(0xb8), -1.0f);
    EXPECT_EQ(f8_e5m2_to_float(0x3c), 1.0f);
    EXPECT_EQ(f8_e5m2_to_float(0x7b), 57344.0f);
    EXPECT_EQ(f8_e5m2_to_float(0x7c), std::numeric_limits<float>::infinity());
    EXPECT_EQ(f8_e5m2_to_float(0x01), std::ldexp(1.0f, -16));
}

TEST(CompareMetrics, SmallVectorByHand) {
    const std::vector<float> ref{1, 2, 4, 0};
    const std::vector<float> test{1, 2.5, 3, 0};
    const Tolerance tol{1e-3, 1e-5, 1e-3};
    const Metrics m = compute_metrics(view(test, DType::f32), view(ref, DType::f32), tol, 1);
    EXPECT_EQ(m.numel, 4u);
    EXPECT_EQ(m.max_abs, 1.0);
    EXPECT_EQ(m.worst.index, 2u);
    EXPECT_EQ(m.worst.test, 3.0);
    EXPECT_EQ(m.worst.ref, 4.0);
    EXPECT_DOUBLE_EQ(m.rel, std::sqrt(0.25 + 1.0) / std::sqrt(1.0 + 4 + 16));
    EXPECT_EQ(m.max_rel, 0.25);
    EXPECT_EQ(m.worst_rel.index, 1u);
    EXPECT_EQ(m.mean_abs, 1.5 / 4);
    EXPECT_EQ(m.mismatched, 2u);
}

TEST(CompareMetrics, NanNeverMatchesAndInfinitiesOnlyThemselves) {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
    const std::vector<double> ref{inf, inf, nan, 1, -inf};
    const std::vector<double> test{inf, 1, nan, nan, inf};
    const Metrics m = compute_metrics(view(test, DType::f64), view(ref, DType::f64), {1e-7, 1e-7, 1e-7}, 1);
    EXPECT_EQ(m.mismatched, 4u);  // all but the matching +inf
    EXPECT_EQ(m.nan_test, 2u);
    EXPECT_EQ(m.nan_ref, 1u);
    EXPECT_EQ(m.inf_test, 2u);
    EXPECT_EQ(m.inf_ref, 3u);
    EXPECT_EQ(m.max_abs, 0.0);  // no finite pair differs
    EXPECT_EQ(m.rel, 0.0);
}

TEST(CompareMetrics, ExactIntegersBeyondDoublePrecision) {
    const std::vector<std::int64_t> ref{std::int64_t{1} << 62, 5};
    const std::vector<std::int64_t> test{(std::int64_t{1} << 62) + 1, 5};  // the same double as 2^62
    const Metrics m = compute_metrics(view(test, DType::i64), view(ref, DType::i64), default_tolerance(DType::i64), 1);
    EXPECT_EQ(m.mismatched, 1u);
}

TEST(CompareMetrics, SameResultForAnyThreadCount) {
    std::mt19937 gen(7);
    std::normal_distribution<float> dist;
    std::vector<float> ref(1'000'003), test(ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i) {
        ref[i] = dist(gen);
        test[i] = ref[i] * (1 + 1e-6f * dist(gen));
    }
    test[777'777] += 0.5f;
    const Tolerance tol = default_tolerance(DType::f32);
    const Metrics one = compute_metrics(view(test, DType::f32), view(ref, DType::f32), tol, 1);
    for (unsigned threads : {2u, 3u, 8u}) {
        const Metrics m = compute_metrics(view(test, DType::f32), view(ref, DType::f32), tol, threads);
        EXPECT_EQ(m.rel, one.rel) << threads;
        EXPECT_EQ(m.mean_abs, one.mean_abs) << threads;
        EXPECT_EQ(m.mismatched, one.mismatched) << threads;
        EXPECT_EQ(m.worst.index, 777'777u) << threads;
    }
}

TEST(CompareMetrics, Unravel) {
    EXPECT_EQ(unravel(23, {2, 3, 4}), (std::vector<std::uint64_t>{1, 2, 3}));
    EXPECT_EQ(unravel(0, {}), (std::vector<std::uint64_t>{}));
    EXPECT_EQ(unravel(5, {0, 3}), (std::vector<std::uint64_t>{0, 0}));
}

TEST(CompareTolerance, DefaultsAreTorchs) {
    const Tolerance f32 = default_tolerance(DType::f32);
    EXPECT_EQ(f32.rtol, 1.3e-6);
    EXPECT_EQ(f32.atol, 1e-5);
    const Tolerance bf16 = default_tolerance(DType::bf16);
    EXPECT_EQ(bf16.rtol, 1.6e-2);
    EXPECT_EQ(bf16.rel, 1e-3);  // the layer line of bf16 work
    EXPECT_TRUE(default_tolerance(DType::i32).exact);
    const Tolerance mixed = default_tolerance(DType::bf16, DType::f32);
    EXPECT_EQ(mixed.rtol, 1.6e-2);
    EXPECT_EQ(mixed.atol, 1e-5);
    EXPECT_EQ(mixed.rel, 1.6e-2);  // across precisions the coarser rtol, not the same-type 1e-3
    EXPECT_FALSE(mixed.exact);
}

TEST(CompareTolerance, LayerRules) {
    auto rules = parse_layer_rules("# per layer\nblocks.3.* rtol=1e-2 atol=1e-4\n\nhead rel=0.5\n*.dropout skip\n");
    ASSERT_TRUE(rules) << rules.error().message;
    ASSERT_EQ(rules->size(), 3u);
    const ToleranceOverride cli{2e-3, std::nullopt, std::nullopt, false};
    const Tolerance t = tolerance_for("blocks.3.mlp", DType::f32, DType::f32, cli, *rules);
    EXPECT_EQ(t.rtol, 1e-2);
    EXPECT_EQ(t.rel, 1e-2);
    EXPECT_EQ(t.atol, 1e-4);
    const Tolerance head = tolerance_for("head", DType::f32, DType::f32, cli, *rules);
    EXPECT_EQ(head.rtol, 2e-3);
    EXPECT_EQ(head.rel, 0.5);
    EXPECT_TRUE(tolerance_for("x.dropout", DType::f32, DType::f32, cli, *rules).skip);
    EXPECT_EQ(parse_layer_rules("a rtol=x").error().message, "line 1: 'rtol=x' is not rtol=<non-negative number>");
    EXPECT_EQ(parse_layer_rules("\na\n").error().message, "line 2: 'a' has no values (rtol=, atol=, rel= or skip)");
    EXPECT_EQ(parse_layer_rules("a tol=1").error().message, "line 1: unknown key 'tol' (rtol, atol, rel or skip)");
    EXPECT_EQ(parse_layer_rules("a rtol=-1").error().message, "line 1: 'rtol=-1' is not rtol=<non-negative number>");
}

TEST(CompareMatching, ExactAndPrefixRules) {
    NameMap map;
    ASSERT_TRUE(map.add("encoder.fc=encoder.linear"));
    ASSERT_TRUE(map.add("*=_orig_mod.*"));
    EXPECT_EQ(map.to_test("encoder.fc"), "encoder.linear");
    EXPECT_EQ(map.to_test("head"), "_orig_mod.head");
    EXPECT_EQ(map.add("a").error().message, "map rule 'a' is not OLD=NEW");
    EXPECT_EQ(map.add("a*b=c").error().message, "map rule 'a*b=c': '*' may only end both sides (a prefix rule)");
    NameMap file;
    ASSERT_TRUE(file.add_file("# renamed\nold new\nx=y\n"));
    EXPECT_EQ(file.to_test("old"), "new");
    EXPECT_EQ(file.add_file("lonely\n").error().message, "line 1: 'lonely' is not OLD=NEW or OLD NEW");

    std::vector<TensorView> ref{{"a", DType::f32, {}, {}}, {"b", DType::f32, {}, {}}, {"c", DType::f32, {}, {}}};
    std::vector<TensorView> test{{"c", DType::f32, {}, {}}, {"B", DType::f32, {}, {}}, {"z", DType::f32, {}, {}}};
    NameMap m;
    ASSERT_TRUE(m.add("b=B"));
    const Pairing p = pair_tensors(ref, test, m, false);
    ASSERT_EQ(p.pairs.size(), 2u);
    EXPECT_EQ(p.pairs[0].ref, 1u);  // REF's order
    EXPECT_EQ(p.pairs[0].test, 1u);
    EXPECT_EQ(p.only_ref, (std::vector<std::string>{"a"}));
    EXPECT_EQ(p.only_test, (std::vector<std::string>{"z"}));
}

namespace {

cudoctor::formats::TensorView f32_view(const std::vector<float>& values) {
    return {"t", DType::f32, {values.size()}, std::string_view(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float))};
}

}  // namespace

TEST(ComparePrecision, Float32HoldingNarrowerValues) {
    using cudoctor::compare::narrower_values;
    // 1.5, 0.15625 and −3.25 fit bf16's 8 significant bits; 0.1f does not.
    EXPECT_EQ(narrower_values(f32_view({1.5f, 0.15625f, -3.25f, 0.0f})), DType::bf16);
    // 1 + 2^-10 needs 11 bits: a half value, not a bf16 one.
    EXPECT_EQ(narrower_values(f32_view({1.0f + 0x1p-10f, 0.5f})), DType::f16);
    // 2^-24 is half's smallest subnormal; 3·2^-25 is not a half value (nor bf16's, with 0.1f).
    EXPECT_EQ(narrower_values(f32_view({0x1p-24f, 1.0f + 0x1p-10f})), DType::f16);
    EXPECT_EQ(narrower_values(f32_view({3 * 0x1p-25f, 1.0f + 0x1p-10f})), std::nullopt);
    // 70000 exceeds half's range; with a bf16-inexact neighbour it is plain float32.
    EXPECT_EQ(narrower_values(f32_view({70000.5f, 0.1f})), std::nullopt);
    EXPECT_EQ(narrower_values(f32_view({0.1f, 0.2f})), std::nullopt);
    // Integer values (indices, masks) fit every type and prove nothing.
    EXPECT_EQ(narrower_values(f32_view({1.0f, 2.0f, 0.0f, -7.0f})), std::nullopt);
    EXPECT_EQ(narrower_values(f32_view({})), std::nullopt);
    const std::vector<double> wide{1.5};
    EXPECT_EQ(narrower_values({"d", DType::f64, {1}, std::string_view(reinterpret_cast<const char*>(wide.data()), 8)}), std::nullopt);
}

}  // namespace compare_metrics_test
