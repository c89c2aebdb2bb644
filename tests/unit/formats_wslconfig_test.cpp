// The .wslconfig reader (src/formats/wslconfig.cpp): the [wsl2] memory limit as WSL reads it.
#include <gtest/gtest.h>

#include "formats/wslconfig.hpp"

namespace wslconfig_test {
using cudoctor::formats::parse_wslconfig_memory;
}  // namespace wslconfig_test

using namespace wslconfig_test;

TEST(Wslconfig, ReadsTheMemoryOfTheWsl2Section) {
    // As Microsoft's documentation writes it, with Notepad's CRLF line ends.
    const auto m = parse_wslconfig_memory("[wsl2]\r\nmemory=4GB\r\nprocessors=2\r\n");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->bytes, 4ull << 30);
    EXPECT_EQ(m->text, "4GB");
    EXPECT_EQ(m->line, 2u);
    EXPECT_EQ(parse_wslconfig_memory("\xEF\xBB\xBF[WSL2]\n  Memory = 6144MB  # a comment\n")->bytes, 6144ull << 20);
    EXPECT_EQ(parse_wslconfig_memory("[wsl2]\nmemory=2g\n")->bytes, 2ull << 30);
    EXPECT_EQ(parse_wslconfig_memory("[wsl2]\nmemory=1GB\nmemory=12GB\n")->bytes, 12ull << 30);  // the last one wins
}

TEST(Wslconfig, OtherSectionsAndNonSizesAreNoLimit) {
    EXPECT_FALSE(parse_wslconfig_memory("[experimental]\nmemory=4GB\n"));
    EXPECT_FALSE(parse_wslconfig_memory("memory=4GB\n"));  // before any section
    EXPECT_FALSE(parse_wslconfig_memory("[wsl2]\nmemory=lots\n"));
    EXPECT_FALSE(parse_wslconfig_memory("[wsl2]\nmemory=4PB\n"));
    EXPECT_FALSE(parse_wslconfig_memory("[wsl2]\nmemory=4GB\nmemory=\n"));  // the last assignment is no size
    EXPECT_FALSE(parse_wslconfig_memory("[wsl2]\nmemory=99999999999999999999TB\n"));
    EXPECT_FALSE(parse_wslconfig_memory(std::string(4096, '\0')));
}
