// The small pure parts of `fleet`: time stamps, durations, host lists.
#include <gtest/gtest.h>

#include "fleet/duration.hpp"
#include "fleet/hostlist.hpp"
#include "fleet/render.hpp"
#include "snapshot/taken_at.hpp"

namespace cudoctor {
namespace {

TEST(FleetTakenAt, FormatsUtcAndReadsItBack) {
    EXPECT_EQ(snapshot::format_utc(0), "1970-01-01T00:00:00Z");
    EXPECT_EQ(snapshot::format_utc(1718174486), "2024-06-12T06:41:26Z");
    EXPECT_EQ(snapshot::format_utc(951782400), "2000-02-29T00:00:00Z");  // a leap day of a century year
    for (std::int64_t t : {0LL, 1718174486LL, 951782400LL, 4102444799LL, 253402300799LL})
        EXPECT_EQ(snapshot::parse_utc(snapshot::format_utc(t)), t) << t;
}

TEST(FleetTakenAt, AcceptsFractionsAndZeroOffset) {
    EXPECT_EQ(snapshot::parse_utc("2024-06-12T06:41:26.123456Z"), 1718174486);
    EXPECT_EQ(snapshot::parse_utc("2024-06-12T06:41:26+00:00"), 1718174486);
}

TEST(FleetTakenAt, RejectsEverythingElse) {
    for (const char* bad :
         {"", "2024-06-12", "2024-06-12T06:41:26", "2024-06-12T06:41:26+02:00", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z",
          "2024-06-31T00:00:00Z", "2024-06-12T24:00:00Z", "1969-12-31T23:59:59Z", "2024-06-12T06:41:26Zjunk", "2024-06-12T06:41:26.Z",
          "２０２４-06-12T06:41:26Z", "2024/06/12T06:41:26Z", "yesterday"})
        EXPECT_EQ(snapshot::parse_utc(bad), std::nullopt) << bad;
}

TEST(FleetDuration, ReadsUnitsAndCombinations) {
    EXPECT_EQ(fleet::parse_duration("0"), 0);
    EXPECT_EQ(fleet::parse_duration("90"), 90);
    EXPECT_EQ(fleet::parse_duration("7d"), 7 * 86400);
    EXPECT_EQ(fleet::parse_duration("1w"), 7 * 86400);
    EXPECT_EQ(fleet::parse_duration("3d12h"), 3 * 86400 + 12 * 3600);
    EXPECT_EQ(fleet::parse_duration("45m30s"), 45 * 60 + 30);
    for (const char* bad : {"", "-1d", "7x", "d", "3d12", "99999999999999999999d", "40000d"})
        EXPECT_EQ(fleet::parse_duration(bad), std::nullopt) << bad;
}

TEST(FleetDuration, FormatsTheTwoLargestUnits) {
    EXPECT_EQ(fleet::format_duration(0), "0s");
    EXPECT_EQ(fleet::format_duration(7 * 86400), "7d");
    EXPECT_EQ(fleet::format_duration(86400 + 3600 + 61), "1d1h");
    EXPECT_EQ(fleet::format_duration(86400 + 300), "1d");
    EXPECT_EQ(fleet::format_duration(3 * 3600 + 120), "3h2m");
}

TEST(FleetHostlist, CompressesNumberedNames) {
    using fleet::compress_hostlist;
    EXPECT_EQ(compress_hostlist({}), "");
    EXPECT_EQ(compress_hostlist({"login"}), "login");
    EXPECT_EQ(compress_hostlist({"gpu001", "gpu002", "gpu003", "gpu007", "login"}), "gpu[001-003,007],login");
    EXPECT_EQ(compress_hostlist({"n9", "n10", "n11"}), "n[9-11]");
    EXPECT_EQ(compress_hostlist({"n01", "n1"}), "n01,n1");  // padded and unpadded are other names
    EXPECT_EQ(compress_hostlist({"rack2-n3", "rack2-n1", "rack1-n1", "rack2-n2"}), "rack2-n[1-3],rack1-n1");
    EXPECT_EQ(compress_hostlist({"a5", "a5"}), "a5");
    // A number past 64 bits stays a plain name instead of overflowing.
    EXPECT_EQ(compress_hostlist({"x1234567890123456789012"}), "x1234567890123456789012");
}

}  // namespace
}  // namespace cudoctor
