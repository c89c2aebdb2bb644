#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "formats/os_release.hpp"

using namespace cudoctor::formats;
using Fields = std::map<std::string, std::string>;

TEST(FormatsOsRelease, ParsesTheFormatTableDriven) {
    const std::vector<std::pair<std::string, Fields>> cases = {
        {"ID=debian\n", {{"ID", "debian"}}},
        {"NAME=\"Debian GNU/Linux\"\n", {{"NAME", "Debian GNU/Linux"}}},
        {"NAME='Ubuntu'\n", {{"NAME", "Ubuntu"}}},
        {"PRETTY_NAME=\"A \\\"quoted\\\" \\$name \\`x\\` \\\\ \\n\"\n", {{"PRETTY_NAME", "A \"quoted\" $name `x` \\ \\n"}}},
        {"X='single \\ keeps \"all\"'\n", {{"X", "single \\ keeps \"all\""}}},
        {"X=bare\\ word\n", {{"X", "bare word"}}},
        {"X=\"a\"'b'c\n", {{"X", "abc"}}},
        {"X=\n", {{"X", ""}}},
        {"X=\"\"\n", {{"X", ""}}},
        {"# comment\n\n   \n  # indented comment\nID=fedora\n", {{"ID", "fedora"}}},
        {"ID=a\nID=b\n", {{"ID", "b"}}},  // the last one wins
        {"  VERSION_ID = \"12\"  \r\n", {{"VERSION_ID", "12"}}},
        {"no equals sign\nID=x\n", {{"ID", "x"}}},
        {"1BAD=x\nBAD-KEY=y\n=z\nGOOD_2=w\n", {{"GOOD_2", "w"}}},
        {"OPEN=\"unterminated\nID=x\n", {{"ID", "x"}}},
        {"OPEN='unterminated\n", {}},
        {"X=a=b\n", {{"X", "a=b"}}},
        {"X=\"\xff\xfe\"\n", {{"X", "\xff\xfe"}}},
        {"X=trailing\\", {{"X", "trailing"}}},
        {"", {}},
    };
    for (const auto& [text, expected] : cases) EXPECT_EQ(parse_os_release(text), expected) << text;
}

TEST(FormatsOsRelease, RealDebianShape) {
    const auto f = parse_os_release(
        "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"
        "NAME=\"Debian GNU/Linux\"\n"
        "VERSION_ID=\"12\"\n"
        "VERSION=\"12 (bookworm)\"\n"
        "VERSION_CODENAME=bookworm\n"
        "ID=debian\n"
        "HOME_URL=\"https://www.debian.org/\"\n");
    EXPECT_EQ(f.at("ID"), "debian");
    EXPECT_EQ(f.at("VERSION_ID"), "12");
    EXPECT_EQ(f.at("PRETTY_NAME"), "Debian GNU/Linux 12 (bookworm)");
    EXPECT_EQ(f.at("HOME_URL"), "https://www.debian.org/");
    EXPECT_EQ(f.size(), 7u);
}

TEST(FormatsOsRelease, ThisMachine) {
    const char* path = std::filesystem::exists("/etc/os-release") ? "/etc/os-release" : "/usr/lib/os-release";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "no os-release";
    std::ifstream in(path);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const auto f = parse_os_release(text);
    ASSERT_TRUE(f.contains("ID"));
    EXPECT_FALSE(f.at("ID").empty());
    for (const auto& [key, value] : f) {
        EXPECT_EQ(value.find('"'), std::string::npos) << key;  // quotes never leak into values
        EXPECT_FALSE(key.empty());
    }
}
