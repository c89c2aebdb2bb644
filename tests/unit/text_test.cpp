#include <gtest/gtest.h>

#include "common/text.hpp"

using namespace cudoctor;

TEST(Text, PrintableKeepsUtf8AndMasksGarbage) {
    EXPECT_EQ(text::printable("plain"), "plain");
    EXPECT_EQ(text::printable("gcc ≤ 13 …"), "gcc ≤ 13 …");
    EXPECT_EQ(text::printable("a\x01\nb\x7f"), "a??b?");
    EXPECT_EQ(text::printable("\xff\xfe ok"), "?? ok");
    EXPECT_EQ(text::printable("\xe2\x89"), "??");       // a cut multi-byte sequence
    EXPECT_EQ(text::printable("\xc0\xaf"), "??");       // overlong '/'
    EXPECT_EQ(text::printable("\xed\xa0\x80"), "???");  // a UTF-16 surrogate
    EXPECT_EQ(text::printable("abcdef", 3), "abc…");
    // The cut never splits a character nor lets one reach past `max` bytes (found by fuzzing
    // kernel_log: a 300-byte field came out 301 bytes long).
    EXPECT_EQ(text::printable("ab≤cd", 3), "ab…");
    EXPECT_EQ(text::printable("ab≤cd", 5), "ab≤…");
}

TEST(Text, SplitKeepsEmptyFieldsAndLinesDropsTheLastNewline) {
    EXPECT_EQ(text::split("a::b", ':'), (std::vector<std::string_view>{"a", "", "b"}));
    EXPECT_EQ(text::split("", ':'), (std::vector<std::string_view>{""}));
    EXPECT_EQ(text::lines("x\r\ny\n"), (std::vector<std::string_view>{"x", "y"}));
    EXPECT_EQ(text::trim("  \t v \n"), "v");
}

TEST(Text, FieldsSplitOnRunsOfBlanksAsAwkDoes) {
    EXPECT_EQ(text::fields("  NVRM version:\tNVIDIA  550.54.14 "),
              (std::vector<std::string_view>{"NVRM", "version:", "NVIDIA", "550.54.14"}));
    EXPECT_EQ(text::fields(" \t "), (std::vector<std::string_view>{}));
    EXPECT_EQ(text::fields("a\nb"), (std::vector<std::string_view>{"a\nb"}));  // one line: a newline is no blank
    EXPECT_TRUE(text::is_blank('\t'));
    EXPECT_FALSE(text::is_blank('\r'));
    EXPECT_TRUE(text::is_digit('7'));
    EXPECT_FALSE(text::is_digit('\xb2'));  // '²' in Latin-1: std::isdigit may say yes in some locales
}
