#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "formats/c_header.hpp"
#include "support/files.hpp"

namespace cudoctor::formats {
namespace {

// ---- find_define_int -------------------------------------------------------------------------

TEST(FormatsCHeader, FindDefineIntTable) {
    struct Case {
        const char* header;
        const char* name;
        std::optional<long long> want;
    };
    const Case cases[] = {
        {"#define CUDA_VERSION 13000\n", "CUDA_VERSION", 13000},
        {"#define CUDART_VERSION  13000", "CUDART_VERSION", 13000},  // two spaces, no newline
        {"  #  define\tX\t\t42  // why\n", "X", 42},
        {"#define X 42 /* why */\n", "X", 42},
        {"#define X 0x1F\n", "X", 31},
        {"#define X 010\n", "X", 8},
        {"#define X 12040UL\n", "X", 12040},
        {"#define X (12040)\n", "X", 12040},
        {"#define X -1\n", "X", -1},
        {"#define X (-9223372036854775807 - 1)\n", "X", std::nullopt},
        {"#define X -9223372036854775808\n", "X", std::numeric_limits<long long>::min()},
        {"#define X 9223372036854775807\n", "X", std::numeric_limits<long long>::max()},
        {"#define X 9223372036854775808\n", "X", std::nullopt},
        {"#define X 99999999999999999999999\n", "X", std::nullopt},
        {"#define X 1\n#define X 2\n", "X", 1},               // the first definition wins
        {"#define X abc\n#define X 2\n", "X", std::nullopt},  // ... even when it is no integer
        {"#define XY 5\n#define X 6\n", "X", 6},              // XY is another macro
        {"#define X(a) 5\n#define X 7\n", "X", 7},            // function-like macros are skipped
        {"#define X\n", "X", std::nullopt},
        {"#define X 12abc\n", "X", std::nullopt},
        {"#define X 1.5\n", "X", std::nullopt},
        {"#define X 5ULLL\n", "X", std::nullopt},
        {"#undef X\n#ifdef X 5\n", "X", std::nullopt},
        {"#defineX 5\n", "X", std::nullopt},
        {"int X = 5;\n", "X", std::nullopt},
        {"#define X 5\r\n", "X", 5},
        {"", "X", std::nullopt},
        {"#define X 5", "", std::nullopt},
        {"#define", "X", std::nullopt},
        {"#", "X", std::nullopt},
        {"#define X ()", "X", std::nullopt},
        {"#define X (", "X", std::nullopt},
        {"#define X -", "X", std::nullopt},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(find_define_int(c.header, c.name), c.want) << c.header;
    }
}

TEST(FormatsCHeader, FindDefineReturnsRawText) {
    EXPECT_EQ(find_define("#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100) // x\n", "CUDNN_VERSION"),
              "(CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100)");
    EXPECT_EQ(find_define("#define X\n", "X"), "");
    EXPECT_EQ(find_define("#define Y 1\n", "X"), std::nullopt);
}

TEST(FormatsCHeader, BinaryJunkIsNoDefine) {
    const std::string junk("\177ELF\0\0#define\0X 5\xff\xfe\n#define X \x80\n", 30);
    EXPECT_EQ(find_define_int(junk, "X"), std::nullopt);
}

// ---- parse_cuda_h_version --------------------------------------------------------------------

TEST(FormatsCHeader, CudaHVersionTable) {
    EXPECT_EQ(parse_cuda_h_version("#define CUDA_VERSION 12040\n")->str(), "12.4");
    EXPECT_EQ(parse_cuda_h_version("#define CUDA_VERSION 13000\n")->str(), "13.0");
    EXPECT_EQ(parse_cuda_h_version("#define CUDA_VERSION 11080\n")->str(), "11.8");
    EXPECT_EQ(parse_cuda_h_version("#define CUDA_VERSION 9020\n")->str(), "9.2");
    EXPECT_EQ(parse_cuda_h_version("#define CUDA_VERSION 10010\n")->str(), "10.1");
}

TEST(FormatsCHeader, CudaHVersionErrors) {
    struct Case {
        const char* text;
        Errc code;
        const char* message;
    };
    const Case cases[] = {
        {"", Errc::not_found, "CUDA_VERSION is not defined"},
        {"#define CUDART_VERSION 12040\n", Errc::not_found, "CUDA_VERSION is not defined"},
        {"#define CUDA_VERSION\n", Errc::parse, "CUDA_VERSION is not an integer: ''"},
        {"#define CUDA_VERSION twelve\n", Errc::parse, "CUDA_VERSION is not an integer: 'twelve'"},
        {"#define CUDA_VERSION 999\n", Errc::parse, "CUDA_VERSION 999 is out of range"},
        {"#define CUDA_VERSION -12040\n", Errc::parse, "CUDA_VERSION -12040 is out of range"},
        {"#define CUDA_VERSION 1000000\n", Errc::parse, "CUDA_VERSION 1000000 is out of range"},
        {"#define CUDA_VERSION 99999999999999999999999\n", Errc::parse, "CUDA_VERSION is not an integer: '99999999999999999999999'"},
    };
    for (const auto& c : cases) {
        const auto v = parse_cuda_h_version(c.text);
        ASSERT_FALSE(v.has_value()) << c.text;
        EXPECT_EQ(v.error().code, c.code) << c.text;
        EXPECT_EQ(v.error().message, c.message) << c.text;
    }
}

// ---- parse_cudnn_version_header --------------------------------------------------------------

// cudnn_version.h of cuDNN 9.19 (this machine), reduced to its macros.
constexpr const char* kCudnn919 = R"(#ifndef CUDNN_VERSION_H_
#define CUDNN_VERSION_H_

#define CUDNN_MAJOR 9
#define CUDNN_MINOR 19
#define CUDNN_PATCHLEVEL 0

#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)
)";

TEST(FormatsCHeader, CudnnVersion) {
    EXPECT_EQ(parse_cudnn_version_header(kCudnn919)->str(), "9.19.0");
    // cuDNN 7's cudnn.h keeps the same macros amid the API.
    EXPECT_EQ(parse_cudnn_version_header("#define CUDNN_MAJOR 7\n#define CUDNN_MINOR 6\n#define CUDNN_PATCHLEVEL 5\n"
                                         "#define CUDNN_VERSION (CUDNN_MAJOR * 1000 + CUDNN_MINOR * 100 + "
                                         "CUDNN_PATCHLEVEL)\n#include \"driver_types.h\"\n")
                  ->str(),
              "7.6.5");
}

TEST(FormatsCHeader, CudnnVersionErrors) {
    struct Case {
        const char* text;
        Errc code;
        const char* message;
    };
    const Case cases[] = {
        {"", Errc::not_found, "CUDNN_MAJOR is not defined"},
        {"#define CUDNN_MAJOR 9\n", Errc::parse, "CUDNN_MINOR is not defined"},
        {"#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n", Errc::parse, "CUDNN_PATCHLEVEL is not defined"},
        {"#define CUDNN_MAJOR 9\n#define CUDNN_MINOR x\n#define CUDNN_PATCHLEVEL 0\n", Errc::parse, "CUDNN_MINOR is not an integer: 'x'"},
        {"#define CUDNN_MAJOR -1\n#define CUDNN_MINOR 0\n#define CUDNN_PATCHLEVEL 0\n", Errc::parse, "CUDNN_MAJOR -1 is out of range"},
        {"#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 10000\n#define CUDNN_PATCHLEVEL 0\n", Errc::parse, "CUDNN_MINOR 10000 is out of range"},
    };
    for (const auto& c : cases) {
        const auto v = parse_cudnn_version_header(c.text);
        ASSERT_FALSE(v.has_value()) << c.text;
        EXPECT_EQ(v.error().code, c.code) << c.text;
        EXPECT_EQ(v.error().message, c.message) << c.text;
    }
}

// ---- real artifacts of this machine ----------------------------------------------------------

TEST(FormatsCHeader, RealCudaH) {
    const auto text = test::read_if_present("/usr/local/cuda-13.0/include/cuda.h");
    if (!text) GTEST_SKIP() << "no CUDA 13.0 toolkit here";
    EXPECT_EQ(parse_cuda_h_version(*text)->str(), "13.0");
}

TEST(FormatsCHeader, RealCudnnHeaders) {
    bool any = false;
    for (const char* name : {"cudnn_version.h", "cudnn_version_v9.h"}) {
        const auto text = test::read_if_present(std::string("/usr/local/cuda-13.0/include/") + name);
        if (!text) continue;
        any = true;
        EXPECT_EQ(parse_cudnn_version_header(*text)->str(), "9.19.0") << name;
    }
    if (!any) GTEST_SKIP() << "no cuDNN headers here";
}

TEST(FormatsCHeader, RealHostConfig) {
    const auto text = test::read_if_present("/usr/local/cuda-13.0/include/crt/host_config.h");
    if (!text) GTEST_SKIP() << "no CUDA 13.0 toolkit here";
    const auto limits = parse_host_config(*text);
    EXPECT_EQ(limits.max_gcc_major, 15);
    EXPECT_EQ(limits.max_clang_major, 20);
    EXPECT_EQ(limits.max_gcc_minor, std::nullopt);
}

}  // namespace
}  // namespace cudoctor::formats
