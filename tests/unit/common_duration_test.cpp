// The one duration grammar of every duration option (watch, fleet, verify, opencv check).
#include <gtest/gtest.h>

#include <chrono>

#include "common/duration.hpp"
#include "fleet/duration.hpp"
#include "watch/watcher.hpp"

using namespace std::chrono_literals;
using cudoctor::parse_duration;

TEST(CommonDuration, UnitsFractionsAndCombinations) {
    EXPECT_EQ(parse_duration("90"), 90s);
    EXPECT_EQ(parse_duration("0.5"), 500ms);
    EXPECT_EQ(parse_duration("250ms"), 250ms);
    EXPECT_EQ(parse_duration("10s"), 10s);
    EXPECT_EQ(parse_duration("5m"), 5min);
    EXPECT_EQ(parse_duration("5min"), 5min);
    EXPECT_EQ(parse_duration("1.5h"), 90min);
    EXPECT_EQ(parse_duration("1h30m"), 90min);  // watch took 1.5h but not 1h30m
    EXPECT_EQ(parse_duration("3d12h"), 84h);
    EXPECT_EQ(parse_duration("1.5d"), 36h);  // fleet took 3d12h but not 1.5d
    EXPECT_EQ(parse_duration("1w"), 168h);
    EXPECT_EQ(parse_duration("1m30s500ms"), 90500ms);
    EXPECT_EQ(parse_duration("0"), 0ms);
    for (const char* bad :
         {"", "-1d", "+1d", "7x", "d", "3d12", "1.", ".", ".5s5", "1e3s", "10 s", "soon", "99999999999999999999d", "40000d"})
        EXPECT_EQ(parse_duration(bad), std::nullopt) << bad;
    EXPECT_EQ(parse_duration(".5s"), 500ms);
}

TEST(CommonDuration, FleetReadsTheSameGrammarInSeconds) {
    EXPECT_EQ(cudoctor::fleet::parse_duration("1.5d"), 36 * 3600);
    EXPECT_EQ(cudoctor::fleet::parse_duration("1h30m"), 5400);
}

TEST(CommonDuration, WatchReadsTheSameGrammarWithinItsRange) {
    EXPECT_EQ(*cudoctor::watch::parse_duration("1h30m"), 90min);
    EXPECT_EQ(*cudoctor::watch::parse_duration("1.5h"), 90min);
    EXPECT_FALSE(cudoctor::watch::parse_duration("0"));     // an interval of nothing
    EXPECT_FALSE(cudoctor::watch::parse_duration("400d"));  // past 366 days
}
