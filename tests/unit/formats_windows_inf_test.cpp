// The Windows driver INF reader (src/formats/windows_inf.cpp): DriverVer of the [Version]
// section as NVIDIA's display INF writes it, UTF-16LE INFs, and NVIDIA's numbering of Windows
// driver file versions.
#include <gtest/gtest.h>

#include "formats/windows_inf.hpp"

namespace windows_inf_test {

using cudoctor::formats::nvidia_version_of_windows;
using cudoctor::formats::parse_inf_driver_ver;

// The head of a display INF as the WSL2 driver store holds it (CRLF line ends).
constexpr std::string_view kNvDispi =
    ";\r\n; Copyright (c) NVIDIA Corporation.  All rights reserved.\r\n;\r\n\r\n[Version]\r\n"
    "Signature   = \"$Windows NT$\"\r\nClass       = Display\r\nClassGUID   = {4d36e968-e325-11ce-bfc1-08002be10318}\r\n"
    "Provider    = %NVIDIA%\r\nDriverVer   = 03/14/2024,31.0.15.5186\r\nCatalogFile = NV_DISP.CAT\r\n\r\n"
    "[Manufacturer]\r\n%NVIDIA_A% = NVIDIA_Devices,NTamd64.10.0...17098\r\n";

std::string utf16le(std::string_view ascii, bool bom) {
    std::string out = bom ? "\xFF\xFE" : "";
    for (char c : ascii) {
        out += c;
        out += '\0';
    }
    return out;
}

}  // namespace windows_inf_test

using namespace windows_inf_test;

TEST(WindowsInf, ReadsDriverVerOfTheVersionSection) {
    const auto v = parse_inf_driver_ver(kNvDispi);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->date, "03/14/2024");
    EXPECT_EQ(v->version, "31.0.15.5186");
}

TEST(WindowsInf, ReadsUtf16InfsWithAndWithoutAByteOrderMark) {
    for (bool bom : {true, false}) {
        const auto v = parse_inf_driver_ver(utf16le(kNvDispi, bom));
        ASSERT_TRUE(v) << "bom=" << bom;
        EXPECT_EQ(v->version, "31.0.15.5186");
    }
}

TEST(WindowsInf, KeysAndSectionsAreCaseInsensitiveAndCommentsEndALine) {
    const auto v = parse_inf_driver_ver("[VERSION]\ndriverver = \"01/01/2020\" , 27.21.14.5541 ; from the 455 branch\n");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->version, "27.21.14.5541");
}

TEST(WindowsInf, DriverVerOutsideVersionOrWithoutAVersionIsNone) {
    EXPECT_FALSE(parse_inf_driver_ver("[Strings]\nDriverVer = 03/14/2024,31.0.15.5186\n"));
    EXPECT_FALSE(parse_inf_driver_ver("[Version]\nDriverVer = 03/14/2024\n"));
    EXPECT_FALSE(parse_inf_driver_ver("[Version]\nDriverVer = 03/14/2024,31.0.15\n"));
    EXPECT_FALSE(parse_inf_driver_ver("[Version]\nDriverVer = 03/14/2024,31.0.x.5186\n"));
    EXPECT_FALSE(parse_inf_driver_ver(""));
    EXPECT_FALSE(parse_inf_driver_ver(std::string(100000, '\0')));
}

TEST(WindowsInf, NvidiaNumbersAreTheLastFiveDigits) {
    EXPECT_EQ(nvidia_version_of_windows("31.0.15.5186"), "551.86");
    EXPECT_EQ(nvidia_version_of_windows("27.21.14.5541"), "455.41");
    EXPECT_EQ(nvidia_version_of_windows("32.0.15.6094"), "560.94");
    EXPECT_EQ(nvidia_version_of_windows("31.0.15.3605"), "536.05");  // a minor below 10 keeps its zero
    EXPECT_FALSE(nvidia_version_of_windows("10.0.9.0"));             // third field below 10: no NVIDIA driver number
    EXPECT_FALSE(nvidia_version_of_windows("31.0.15.12345"));
    EXPECT_FALSE(nvidia_version_of_windows("31.0.15"));
    EXPECT_FALSE(nvidia_version_of_windows("31.0.10.0042"));  // 0.42: no driver of the WDDM era
}
