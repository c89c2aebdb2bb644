#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "formats/sysfs.hpp"

using namespace cudoctor::formats;

TEST(FormatsSysfs, ParsesHexAttributes) {
    const std::vector<std::pair<std::string, std::optional<std::uint32_t>>> cases = {
        {"0x10de\n", 0x10de},
        {"0x030000\n", 0x030000},
        {"0x030200", 0x030200},
        {"0X10DE\n", 0x10de},
        {"0x0\n", 0},
        {"0xffffffff\n", 0xffffffffu},
        {"0x00000000000010de\n", 0x10de},  // leading zeros do not overflow
        {"0x10de\r\n", 0x10de},
        {"0x10de  \n", 0x10de},
        {"", std::nullopt},
        {"\n", std::nullopt},
        {"0x", std::nullopt},
        {"0x\n", std::nullopt},
        {"10de\n", std::nullopt},
        {"x10de", std::nullopt},
        {" 0x10de", std::nullopt},
        {"0x10dg\n", std::nullopt},
        {"0x10de\n0x1\n", std::nullopt},
        {"0x100000000\n", std::nullopt},
        {"0xffffffffffffffffffff\n", std::nullopt},
        {"-0x1", std::nullopt},
        {"0x-1", std::nullopt},
        {"0x+1", std::nullopt},
        {std::string("0x10\0de", 7), std::nullopt},
        {"0x10de\xff", std::nullopt},
    };
    for (const auto& [text, expected] : cases) EXPECT_EQ(parse_sysfs_hex(text), expected) << '"' << text << '"';
}
