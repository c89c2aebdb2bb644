#include <gtest/gtest.h>

#include "common/version.hpp"

using cudoctor::Version;

TEST(Version, ParsesLeadingDottedRun) {
    EXPECT_EQ(Version::parse("12.4.131")->str(), "12.4.131");
    EXPECT_EQ(Version::parse("2.4.0+cu121")->str(), "2.4.0");
    EXPECT_EQ(Version::parse("550.54.14 ")->str(), "550.54.14");
    EXPECT_EQ(Version::parse("1.")->str(), "1");
    EXPECT_FALSE(Version::parse("").has_value());
    EXPECT_FALSE(Version::parse("v12").has_value());
    EXPECT_FALSE(Version::parse("99999999999999999999").has_value());
}

TEST(Version, ComparesNumericallyWithZeroPadding) {
    EXPECT_LT(*Version::parse("12.4"), *Version::parse("12.10"));
    EXPECT_EQ(*Version::parse("12.4"), *Version::parse("12.4.0"));
    EXPECT_GT(*Version::parse("550.54.14"), *Version::parse("550.54.2"));
    EXPECT_EQ(Version::parse("12.4.131")->truncated(2).str(), "12.4");
}

TEST(Version, KeepsTheTextAsWritten) {
    // Driver versions carry zero-padded parts: 535.104.05 is not 535.104.5.
    EXPECT_EQ(Version::parse("535.104.05")->str(), "535.104.05");
    EXPECT_EQ(Version::parse("535.104.05")->truncated(2).str(), "535.104");
    EXPECT_EQ(Version::parse("12.04.131")->truncated(2).str(), "12.04");
    EXPECT_EQ(Version::parse("12.4")->truncated(5).str(), "12.4");
    EXPECT_EQ(Version({12, 4}).str(), "12.4");
    EXPECT_EQ(*Version::parse("535.104.05"), *Version::parse("535.104.5"));
}
