#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include "formats/cuda_version_files.hpp"

namespace cudoctor::formats {
namespace {

// ---- version.json ----------------------------------------------------------------------------

// CUDA 11.8 runfile install, as quoted from /usr/local/cuda/version.json in setup notes
// (other members left out there too).
constexpr const char* kVersionJson118 = R"json({
   "cuda" : {
      "name" : "CUDA SDK",
      "version" : "11.8.20220929"
   },
   "cuda_gdb" : {
      "name" : "CUDA GDB",
      "version" : "11.8.86"
   },
   "cuda_nvcc" : {
      "name" : "CUDA NVCC",
      "version" : "11.8.89"
   },
   "nvidia_driver" : {
      "name" : "NVIDIA Linux Driver",
      "version" : "520.61.05"
   }
}
)json";

// CUDA 11.5, /usr/local/cuda-11.5/version.json quoted in a public README (start of the file).
constexpr const char* kVersionJson115 = R"json({
   "cuda" : {
      "name" : "CUDA SDK",
      "version" : "11.5.2"
   },
   "cuda_cudart" : {
      "name" : "CUDA Runtime (cudart)",
      "version" : "11.5.117"
   },
   "cuda_cuobjdump" : {
      "name" : "cuobjdump",
      "version" : "11.5.119"
   }
})json";

// CUDA 12.6.3 tarball install, quoted (with trims) in a public build log.
constexpr const char* kVersionJson126 = R"json({
   "cuda" : {
      "name" : "CUDA SDK",
      "version" : "12.6.20241114"
   },
   "cuda_cccl" : {
      "name" : "CUDA C++ Core Compute Libraries",
      "version" : "12.6.77"
   },
   "cuda_cudart" : {
      "name" : "CUDA Runtime (cudart)",
      "version" : "12.6.77"
   },
   "cuda_nvcc" : {
      "name" : "CUDA NVCC",
      "version" : "12.6.85"
   }
})json";

TEST(FormatsCudaVersionFiles, VersionJsonReal) {
    auto v = parse_cuda_version_json(kVersionJson118);
    ASSERT_TRUE(v.has_value()) << v.error().message;
    EXPECT_EQ(v->cuda, "11.8.20220929");
    EXPECT_EQ(v->cudart, "");
    EXPECT_EQ(v->nvcc, "11.8.89");
    EXPECT_EQ(v->driver, "520.61.05");

    v = parse_cuda_version_json(kVersionJson115);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->cuda, "11.5.2");
    EXPECT_EQ(v->cudart, "11.5.117");
    EXPECT_EQ(v->nvcc, "");
    EXPECT_EQ(v->driver, "");

    v = parse_cuda_version_json(kVersionJson126);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->cuda, "12.6.20241114");
    EXPECT_EQ(v->cudart, "12.6.77");
    EXPECT_EQ(v->nvcc, "12.6.85");
}

TEST(FormatsCudaVersionFiles, VersionJsonWrongTypesAreMissing) {
    const char* texts[] = {
        R"({})",
        R"({"cuda": 5, "cuda_cudart": null, "cuda_nvcc": [], "nvidia_driver": "520"})",
        R"({"cuda": {"version": 12.4}, "cuda_cudart": {"version": null}, "cuda_nvcc": {"version": {}}})",
        R"({"cuda": {"name": "CUDA SDK"}, "cuda_nvcc": [{"version": "1"}]})",
    };
    for (const char* t : texts) {
        const auto v = parse_cuda_version_json(t);
        ASSERT_TRUE(v.has_value()) << t;
        EXPECT_EQ(v->cuda, "") << t;
        EXPECT_EQ(v->cudart, "") << t;
        EXPECT_EQ(v->nvcc, "") << t;
        EXPECT_EQ(v->driver, "") << t;
    }
}

TEST(FormatsCudaVersionFiles, VersionJsonErrors) {
    struct Case {
        std::string text;
        const char* message;
    };
    const Case cases[] = {
        {"",
         "not valid JSON: parse error at line 1, column 1: syntax error while parsing value - unexpected end "
         "of input; expected '[', '{', or a literal"},
        {"[1, 2]", "not a JSON object, but array"},
        {"\"12.4\"", "not a JSON object, but string"},
        {"null", "not a JSON object, but null"},
        {R"({"cuda": {"version": "12.4")",
         "not valid JSON: parse error at line 1, column 28: syntax error while parsing object - unexpected end of "
         "input; expected '}'"},
        {"CUDA Version 10.0.130\n",
         "not valid JSON: parse error at line 1, column 1: syntax error while parsing value - invalid literal; last "
         "read: 'C'"},
        {std::string("{\"cuda\": \"\x01\"}"),
         "not valid JSON: parse error at line 1, column 11: syntax error while parsing value - invalid string: "
         "control character U+0001 (SOH) must be escaped to \\u0001; last read: '\"<U+0001>'"},
    };
    for (const auto& c : cases) {
        const auto v = parse_cuda_version_json(c.text);
        ASSERT_FALSE(v.has_value()) << c.text;
        EXPECT_EQ(v.error().code, Errc::parse) << c.text;
        EXPECT_EQ(v.error().message, c.message) << c.text;
    }
}

TEST(FormatsCudaVersionFiles, VersionJsonHostile) {
    // Deep nesting must neither overflow the stack nor be accepted as a toolkit.
    const std::string deep = "{\"cuda\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
    const auto v = parse_cuda_version_json(deep);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->cuda, "");
    EXPECT_FALSE(parse_cuda_version_json(std::string(100000, '{')).has_value());
    EXPECT_FALSE(parse_cuda_version_json(std::string("{\"cuda\"\0:1}", 11)).has_value());
    EXPECT_FALSE(parse_cuda_version_json("{\"a\": 1e999999}").has_value());
}

// ---- version.txt -----------------------------------------------------------------------------

TEST(FormatsCudaVersionFiles, VersionTxt) {
    EXPECT_EQ(parse_cuda_version_txt("CUDA Version 10.0.130\n")->str(), "10.0.130");
    EXPECT_EQ(parse_cuda_version_txt("CUDA Version 9.0.176")->str(), "9.0.176");
    EXPECT_EQ(parse_cuda_version_txt("CUDA Version 8.0.61\r\n")->str(), "8.0.61");
    EXPECT_EQ(parse_cuda_version_txt("CUDA Version 11.0.207\nCUDA Patch Version 11.0.221\n")->str(), "11.0.207");

    struct Case {
        std::string text;
        const char* message;
    };
    const Case cases[] = {
        {"", "no 'CUDA Version X.Y' in ''"},
        {"CUDA Version \n", "no 'CUDA Version X.Y' in 'CUDA Version'"},
        {"CUDA Version 10\n", "no 'CUDA Version X.Y' in 'CUDA Version 10'"},
        {"cuda version 10.0.130", "no 'CUDA Version X.Y' in 'cuda version 10.0.130'"},
        {"CUDA Version 99999999999.0", "no 'CUDA Version X.Y' in 'CUDA Version 99999999999.0'"},
        {std::string("\x7f"
                     "ELF\x02\x01",
                     6),
         "no 'CUDA Version X.Y' in '?ELF?"
         "?'"},
    };
    for (const auto& c : cases) {
        const auto v = parse_cuda_version_txt(c.text);
        ASSERT_FALSE(v.has_value()) << c.text;
        EXPECT_EQ(v.error().code, Errc::parse);
        EXPECT_EQ(v.error().message, c.message);
    }
}

// ---- nvcc --version --------------------------------------------------------------------------

TEST(FormatsCudaVersionFiles, NvccOutput) {
    // nvcc 13.0 on this machine.
    EXPECT_EQ(parse_nvcc_version_output("nvcc: NVIDIA (R) Cuda compiler driver\n"
                                        "Copyright (c) 2005-2025 NVIDIA Corporation\n"
                                        "Built on Wed_Aug_20_01:58:59_PM_PDT_2025\n"
                                        "Cuda compilation tools, release 13.0, V13.0.88\n"
                                        "Build cuda_13.0.r13.0/compiler.36424714_0\n")
                  ->str(),
              "13.0.88");
    // nvcc 11.8, quoted in setup notes.
    EXPECT_EQ(parse_nvcc_version_output("nvcc: NVIDIA (R) Cuda compiler driver\n"
                                        "Copyright (c) 2005-2022 NVIDIA Corporation\n"
                                        "Built on Wed_Sep_21_10:33:58_PDT_2022\n"
                                        "Cuda compilation tools, release 11.8, V11.8.89\n"
                                        "Build cuda_11.8.r11.8/compiler.31833905_0\n")
                  ->str(),
              "11.8.89");
    // Old nvcc (CUDA 7.5) printed no Build line.
    EXPECT_EQ(parse_nvcc_version_output("Cuda compilation tools, release 7.5, V7.5.17\n")->str(), "7.5.17");
    // Without the V part, or when it disagrees, "release X.Y" alone.
    EXPECT_EQ(parse_nvcc_version_output("Cuda compilation tools, release 5.0\n")->str(), "5.0");
    EXPECT_EQ(parse_nvcc_version_output("release 12.4, V11.0.1\n")->str(), "12.4");
    EXPECT_EQ(parse_nvcc_version_output("release 12.4.1, V12.4.99\n")->str(), "12.4.99");
    EXPECT_EQ(parse_nvcc_version_output("release 12.4\n, V12.4.99\n")->str(), "12.4");
    // "release" without a version is skipped for a later one.
    EXPECT_EQ(parse_nvcc_version_output("pre-release build\nrelease 12.1, V12.1.66")->str(), "12.1.66");

    for (const char* t : {"", "nvcc: command not found\n", "release \n", "release 12\n", "release x.y, V1.2.3"}) {
        const auto v = parse_nvcc_version_output(t);
        ASSERT_FALSE(v.has_value()) << t;
        EXPECT_EQ(v.error().code, Errc::parse);
        EXPECT_EQ(v.error().message, "no 'release X.Y' in nvcc --version output");
    }
}

TEST(FormatsCudaVersionFiles, RealNvcc) {
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen("/usr/local/cuda-13.0/bin/nvcc --version 2>/dev/null", "r"), pclose);
    if (!pipe) GTEST_SKIP() << "popen failed";
    std::string out;
    std::array<char, 256> buf{};
    while (const auto n = std::fread(buf.data(), 1, buf.size(), pipe.get())) out.append(buf.data(), n);
    if (out.empty()) GTEST_SKIP() << "no /usr/local/cuda-13.0/bin/nvcc here";
    const auto v = parse_nvcc_version_output(out);
    ASSERT_TRUE(v.has_value()) << v.error().message;
    EXPECT_EQ(v->str(), "13.0.88");
}

TEST(FormatsCudaVersionFiles, HostileNvccOutputStaysLinear) {
    std::string text;
    for (int i = 0; i < 200000; ++i) text += "release 1.2";
    EXPECT_EQ(parse_nvcc_version_output(text)->str(), "1.2");
    text.clear();
    for (int i = 0; i < 200000; ++i) text += "release x";
    EXPECT_FALSE(parse_nvcc_version_output(text).has_value());
}

}  // namespace
}  // namespace cudoctor::formats
