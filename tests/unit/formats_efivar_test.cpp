#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/efivar.hpp"

using cudoctor::Errc;
using namespace cudoctor::formats;

TEST(FormatsEfivar, ReadsTheDataByteAfterTheAttributes) {
    EXPECT_EQ(parse_efivar_bool(std::string("\x06\0\0\0\x01", 5)).value(), true);
    EXPECT_EQ(parse_efivar_bool(std::string("\x06\0\0\0\x00", 5)).value(), false);
    EXPECT_EQ(parse_efivar_bool(std::string("\x07\0\0\0\x01", 5)).value(), true);          // NV+BS+RT
    EXPECT_EQ(parse_efivar_bool(std::string("\xff\xff\xff\xff\x00", 5)).value(), false);   // any attributes
    EXPECT_EQ(parse_efivar_bool(std::string("\x06\0\0\0\x01\x02\x03", 7)).value(), true);  // trailing bytes ignored
}

TEST(FormatsEfivar, ErrorsAreExact) {
    struct Case {
        std::string bytes;
        Errc code;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"", Errc::truncated, "EFI variable truncated: 0 bytes, expected 4 attribute bytes and 1 data byte"},
        {std::string("\x06\0\0\0", 4), Errc::truncated, "EFI variable truncated: 4 bytes, expected 4 attribute bytes and 1 data byte"},
        {"\x01", Errc::truncated, "EFI variable truncated: 1 bytes, expected 4 attribute bytes and 1 data byte"},
        {std::string("\x06\0\0\0\x02", 5), Errc::parse, "EFI variable data byte is 0x02, expected 0 or 1"},
        {std::string("\x06\0\0\0\xff", 5), Errc::parse, "EFI variable data byte is 0xff, expected 0 or 1"},
        {std::string("\x06\0\0\0"
                     "1",
                     5),
         Errc::parse, "EFI variable data byte is 0x31, expected 0 or 1"},
    };
    for (const auto& c : cases) {
        const auto r = parse_efivar_bool(c.bytes);
        ASSERT_FALSE(r.has_value()) << c.message;
        EXPECT_EQ(r.error().code, c.code);
        EXPECT_EQ(r.error().message, c.message);
    }
}
