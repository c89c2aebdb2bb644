// The memory-trend verdict on series built here (the replayed files through the real binary are
// in tests/integration/watch_replay_test.cpp): a leak, a leak after a warm-up, flat with noise
// and a spike, a caching allocator's sawtooth (with level and with climbing troughs), shrinking,
// too short, and broken input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "watch/trend.hpp"

using namespace cudoctor::watch;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

/// `hours` of samples every `step_s`, value(t_seconds) in MiB plus Gaussian noise of `noise` MiB.
template <class F>
std::vector<Point> series(double hours, double step_s, double noise, F value, unsigned seed = 1) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> n(0, noise);
    std::vector<Point> p;
    for (double t = 0; t <= hours * 3600 + 1e-9; t += step_s) p.push_back({t, (value(t) + (noise > 0 ? n(rng) : 0)) * kMiB});
    return p;
}

double mib_per_hour(double bytes_per_second) { return bytes_per_second * 3600 / kMiB; }

}  // namespace

TEST(WatchTrend, SteadyLeakFromTheStart) {
    const auto p = series(6, 60, 2, [](double t) { return 2048 + 38 * t / 3600; });
    const auto t = analyse_memory(p);
    EXPECT_EQ(t.verdict, TrendVerdict::leak) << t.reason;
    EXPECT_NEAR(mib_per_hour(t.slope), 38, 1.5);
    EXPECT_LT(mib_per_hour(t.ci_low), 38);
    EXPECT_GT(mib_per_hour(t.ci_high), 38);
    EXPECT_NEAR(mib_per_hour(t.robust_slope), 38, 2);
    EXPECT_EQ(t.since, 0);
    EXPECT_TRUE(describe(t).starts_with("+3")) << describe(t);
    EXPECT_NE(describe(t).find(" MiB/hour, steady since 00:00 ("), std::string::npos) << describe(t);
}

TEST(WatchTrend, LeakAfterWarmUpIsDatedFromItsStart) {
    const auto p = series(4, 120, 2, [](double t) {
        if (t < 360) return 2048.0 * (t + 120) / 480;
        if (t < 2400) return 2048.0;
        return 2048 + 38 * (t - 2400) / 3600;
    });
    const auto t = analyse_memory(p);
    EXPECT_EQ(t.verdict, TrendVerdict::leak) << t.reason;
    EXPECT_NEAR(mib_per_hour(t.slope), 38, 4);
    EXPECT_GE(t.since, 1800);  // not before the warm-up ended…
    EXPECT_LE(t.since, 3000);  // …and not long after the leak began (00:40)
}

TEST(WatchTrend, FlatWithNoiseSpikeAndWarmUpIsFlat) {
    auto p = series(4, 120, 4, [](double t) { return t < 300 ? 1000.0 : 5120.0; });
    p[77].y += 60 * kMiB;
    const auto t = analyse_memory(p);
    EXPECT_EQ(t.verdict, TrendVerdict::flat) << t.reason;
    EXPECT_LT(std::abs(mib_per_hour(t.slope)), 5);
    EXPECT_TRUE(describe(t).starts_with("flat (")) << describe(t);
}

TEST(WatchTrend, TinySignificantGrowthIsNotALeak) {
    // 1 MiB/hour on 5 GiB with no noise: statistically certain, practically nothing.
    const auto t = analyse_memory(series(4, 60, 0.01, [](double t) { return 5120 + t / 3600; }));
    EXPECT_EQ(t.verdict, TrendVerdict::flat) << t.reason;
}

std::vector<Point> sawtooth_series(double trough_climb_mib_per_tooth) {
    std::vector<Point> p;
    double level = 3072;
    int tooth = 0;
    for (int i = 0; i <= 120; ++i) {
        if (i > 20 && i % 20 == 2) {
            ++tooth;
            level = 3072 + tooth * trough_climb_mib_per_tooth;
        } else if (i % 2 == 0) {
            level += 384;
        }
        p.push_back({i * 120.0, level * kMiB});
    }
    return p;
}

TEST(WatchTrend, CachingAllocatorSawtoothIsNotALeak) {
    const auto p = sawtooth_series(0);
    const auto t = analyse_memory(p);
    EXPECT_EQ(t.verdict, TrendVerdict::sawtooth) << t.reason;
    EXPECT_EQ(t.drops, 5u);
    EXPECT_NE(describe(t).find("not a leak"), std::string::npos);
    // A straight line through the raw samples climbs (the window ends near a peak): its slope
    // says where the window cut a tooth, not what the allocator does.
    double mt = 0, my = 0;
    for (auto& q : p) mt += q.t, my += q.y;
    mt /= p.size(), my /= p.size();
    double sxy = 0, sxx = 0;
    for (auto& q : p) sxy += (q.t - mt) * (q.y - my), sxx += (q.t - mt) * (q.t - mt);
    EXPECT_GT(mib_per_hour(sxy / sxx), 10);
}

TEST(WatchTrend, LeakUnderASawtoothIsALeak) {
    const auto t = analyse_memory(sawtooth_series(150));  // each trough 150 MiB above the last
    EXPECT_EQ(t.verdict, TrendVerdict::leak) << t.reason;
    EXPECT_NEAR(mib_per_hour(t.slope), 150 / (20 * 120 / 3600.0), 5);  // a tooth is 20 samples of 2 min
    EXPECT_NE(describe(t).find("under a sawtooth"), std::string::npos) << describe(t);
}

TEST(WatchTrend, ShrinkingTooShortAndBrokenInput) {
    EXPECT_EQ(analyse_memory(series(4, 120, 2, [](double t) { return 8000 - 200 * t / 3600; })).verdict, TrendVerdict::shrinking);
    const auto few = analyse_memory(series(0.1, 60, 1, [](double) { return 100.0; }));
    EXPECT_EQ(few.verdict, TrendVerdict::too_short);
    EXPECT_EQ(describe(few), "too short to tell (7 samples)");
    EXPECT_EQ(analyse_memory({}).verdict, TrendVerdict::too_short);
    // Same time for every sample, NaN and infinity: no crash, no verdict out of thin air.
    std::vector<Point> same(20, Point{5, 1e9});
    EXPECT_EQ(analyse_memory(same).verdict, TrendVerdict::too_short);
    auto noisy = series(2, 60, 2, [](double) { return 4096.0; });
    noisy[3].y = std::numeric_limits<double>::quiet_NaN();
    noisy[9].t = std::numeric_limits<double>::infinity();
    const auto t = analyse_memory(noisy);
    EXPECT_EQ(t.samples, noisy.size() - 2);
    EXPECT_EQ(t.verdict, TrendVerdict::flat);
    // Unsorted input is sorted first.
    auto reversed = series(6, 60, 2, [](double t) { return 2048 + 38 * t / 3600; });
    std::reverse(reversed.begin(), reversed.end());
    EXPECT_EQ(analyse_memory(reversed).verdict, TrendVerdict::leak);
}

TEST(WatchTrend, Texts) {
    EXPECT_EQ(bytes_text(1.5 * 1024 * kMiB), "1.5 GiB");
    EXPECT_EQ(bytes_text(380 * kMiB), "380 MiB");
    EXPECT_EQ(bytes_text(12 * 1024), "12 KiB");
    EXPECT_EQ(clock_text(2400), "00:40");
    EXPECT_EQ(clock_text(26 * 3600 + 300), "26:05");
    EXPECT_EQ(clock_text(7), "0:07");
    EXPECT_EQ(clock_text(0), "00:00");
}
