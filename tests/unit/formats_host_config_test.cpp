#include <gtest/gtest.h>

#include <string>

#include "formats/c_header.hpp"

// parse_host_config over the compiler checks of real host_config.h files, each reduced to the
// lines around its checks (the #error texts are shortened after "supported!").
namespace cudoctor::formats {
namespace {

// CUDA 13.0, /usr/local/cuda-13.0/include/crt/host_config.h (also in
// leomaxwell972/CU13ToolKit_Includes: include/crt/host_config.h). The Grace and HOS clang checks
// come first and must not count as the host clang check.
constexpr const char* kCuda130 = R"(
/* check host compiler version  */
#if !__NV_NO_HOST_COMPILER_CHECK

#if defined(__GRCO_CLANG_COMPILER__)
#if (__GRCO_CLANG_COMPILER__ == 1) && ((__clang_major__ < 16) || (__clang_major__ > 20))
#error -- unsupported Grace clang version! The version must be 16.x to 20.x. The nvcc flag '-allow-unsupported-compiler' can be used to override this version check
#endif  /* (__GRCO_CLANG_COMPILER__ == 1) && ((__clang_major__ < 16) || (__clang_major__ > 20)) */

#endif /* __GRCO_CLANG_COMPILER__  */

#if defined(__INTEL_CLANG_COMPILER)
#error -- unsupported Intel ICX compiler! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check
#endif /* __INTEL_CLANG_COMPILER */

#if defined(__powerpc__)

#if defined(__ibmxl_vrm__) && !(__ibmxl_vrm__ >= 0x0d010000 && __ibmxl_vrm__ < 0x0d020000) && \
                              !(__ibmxl_vrm__ >= 0x10010000 && __ibmxl_vrm__ < 0x10020000)

#error -- unsupported xlC version! only xlC 13.1 and 16.1 are supported.

#endif /* __ibmxl_vrm__ && !(__ibmxl_vrm__ >= 0x0d010000 && __ibmxl_vrm__ < 0x0d020000) &&
                           !(__ibmxl_vrm__ >= 0x10010000 && __ibmxl_vrm__ < 0x10020000) */

#endif /* __powerpc__ */

#if defined(__GNUC__)

#if __GNUC__ > 15

#error -- unsupported GNU version! gcc versions later than 15 are not supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check

#endif /* __GNUC__ > 15 */


#if defined(__HORIZON__)
#if (__clang_major__ >= 21) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3))
#error -- unsupported HOS clang version! The version must be must be less than 21 and greater than 3.2 .
#endif  /* (__clang_major__ >= 21) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3)) */
#endif /* __HORIZON__  */

#if defined(__clang__) && !defined(__ibmxl_vrm__) && !defined(__ICC) && !defined(__HORIZON__) && !defined(__APPLE__) && !defined(__GRCO_CLANG_COMPILER__)

#if (__clang_major__ >= 21) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3))
#error -- unsupported clang version! clang version must be less than 21 and greater than 3.2 . The nvcc flag '-allow-unsupported-compiler' can be used to override this version check

#endif  /* (__clang_major__ >=  21) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3)) */

#endif /* defined(__clang__) && ... */


#endif /* __GNUC__ */

#if defined(_WIN32)

#if _MSC_VER < 1920 || _MSC_VER >= 1950

#error -- unsupported Microsoft Visual Studio version! Only the versions between 2019 and 2022 (inclusive) are supported!

#endif /* (_MSC_VER < 1910 || _MSC_VER >= 1950) */

#endif /* _WIN32 */
#endif  /* !__NV_NO_HOST_COMPILER_CHECK */
)";

// CUDA 12.6, zspace/system.cuda-12.6: include/crt/host_config.h.
constexpr const char* kCuda126 = R"(
#if defined(__GRCO_CLANG_COMPILER__)
#if (__GRCO_CLANG_COMPILER__ == 1) && ((__clang_major__ < 16) || (__clang_major__ > 18))
#error -- unsupported Grace clang version! The version must be 16.x to 18.x.
#endif  /* (__GRCO_CLANG_COMPILER__ == 1) && ((__clang_major__ < 16) || (__clang_major__ > 18)) */
#endif /* __GRCO_CLANG_COMPILER__  */

#if defined(__GNUC__)

#if __GNUC__ > 13

#error -- unsupported GNU version! gcc versions later than 13 are not supported!

#endif /* __GNUC__ > 13 */


#if defined(__HORIZON__)
#if (__clang_major__ >= 19) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3))
#error -- unsupported HOS clang version! The version must be must be less than 19 and greater than 3.2 .
#endif  /* (__clang_major__ >= 19) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3)) */
#endif /* __HORIZON__  */

#if defined(__clang__) && !defined(__ibmxl_vrm__) && !defined(__ICC) && !defined(__HORIZON__) && !defined(__APPLE__) && !defined(__GRCO_CLANG_COMPILER__)

#if (__clang_major__ >= 19) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3))
#error -- unsupported clang version! clang version must be less than 19 and greater than 3.2 .

#endif  /* (__clang_major__ >=  19) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3)) */

#endif /* defined(__clang__) && ... */

#endif /* __GNUC__ */
)";

// CUDA 11.x (clang < 15, MSVC < 1940: 11.8), xiaohaoo/Yolo_TensorRT: include/crt/host_config.h.
constexpr const char* kCuda118 = R"(
#if defined(__GNUC__)

#if __GNUC__ > 11

#error -- unsupported GNU version! gcc versions later than 11 are not supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check

#endif /* __GNUC__ > 11 */


#if defined(__clang__) && !defined(__ibmxl_vrm__) && !defined(__ICC) && !defined(__HORIZON__) && !defined(__APPLE__)

#if (__clang_major__ >= 15) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3))
#error -- unsupported clang version! clang version must be less than 15 and greater than 3.2 .

#endif  /* (__clang_major__ >=  15) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3)) */

#endif /* defined(__clang__) && !defined(__ibmxl_vrm__) && !defined(__ICC) && !defined(__HORIZON__) && !defined(__APPLE__) */


#endif /* __GNUC__ */
)";

// CUDA 10.2, from a patch of /usr/local/cuda-10.2/include/crt/host_config.h quoted in a blog
// post (the "-" side), with the clang check shape CUDA 10.x used.
constexpr const char* kCuda102 = R"(
#if defined(__GNUC__)

#if __GNUC__ > 8

#error -- unsupported GNU version! gcc versions later than 8 are not supported!

#endif /* __GNUC__ > 8 */


#if defined(__clang__) && !defined(__ibmxl_vrm__) && !defined(__ICC) && !defined(__HORIZON__) && !defined(__APPLE__)
)";

// CUDA 7.0, /usr/local/cuda-7.0/include/host_config.h as quoted in setup notes.
constexpr const char* kCuda70 = R"(
#if defined(__GNUC__)

#if __GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ > 9)

#error -- unsupported GNU version! gcc versions later than 4.9 are not supported!

#endif /* __GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ > 9) */

#endif /* __GNUC__ */
)";

// CUDA 3.x/4.0 era, ramin-raeisi/prebuilt-cuda: include/host_config.h.
constexpr const char* kCuda4 = R"(
#if defined(__CUDACC__)

/* check for host compilers that are compatible with nvcc */
#if !defined(__GNUC__) && !defined(_WIN32)

#error --- !!! UNSUPPORTED COMPILER !!! ---

#endif /* !__GNUC__ && !_WIN32 */

#if defined(__ICC)

#if __ICC != 1110 || !defined(__GNUC__) || !defined(__LP64__)

//#error -- unsupported ICC configuration! Only ICC 11.1 on Linux x86_64 is supported!

#endif /* __ICC != 1110 || !__GNUC__ || !__LP64__ */

#endif /* __ICC */

#if defined(__GNUC__)

#if __GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ > 4)

#error -- unsupported GNU version! gcc 4.5 and up are not supported!

#endif /* __GNUC__> 4 || (__GNUC__ == 4 && __GNUC_MINOR__ > 4) */

#endif /* __GNUC__ */
)";

// A CUDA 11.0-era header whose owner deleted both #error lines (bleedingfight/Inference:
// include/crt/host_config.h): nvcc then accepts every gcc and clang, so there is no limit.
constexpr const char* kErrorsRemoved = R"(
#if defined(__GNUC__)

#if __GNUC__ > 9


#endif /* __GNUC__ > 9 */


#if defined(__clang__) && !defined(__ibmxl_vrm__) && !defined(__ICC) && !defined(__HORIZON__) && !defined(__APPLE__)

#if (__clang_major__ >= 10) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3))
#endif  /* (__clang_major__ >=  10) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3)) */

#endif /* defined(__clang__) ... */


#endif /* __GNUC__ */
)";

struct Want {
    std::optional<int> gcc;
    std::optional<int> clang;
    std::optional<int> gcc_minor;
};

void expect_limits(const char* label, std::string_view text, Want want) {
    const auto got = parse_host_config(text);
    EXPECT_EQ(got.max_gcc_major, want.gcc) << label;
    EXPECT_EQ(got.max_clang_major, want.clang) << label;
    EXPECT_EQ(got.max_gcc_minor, want.gcc_minor) << label;
}

TEST(FormatsHostConfig, RealGenerations) {
    expect_limits("13.0", kCuda130, {15, 20, std::nullopt});
    expect_limits("12.6", kCuda126, {13, 18, std::nullopt});
    expect_limits("11.8", kCuda118, {11, 14, std::nullopt});
    expect_limits("10.2", kCuda102, {8, std::nullopt, std::nullopt});
    expect_limits("7.0", kCuda70, {4, std::nullopt, 9});
    expect_limits("4.0", kCuda4, {4, std::nullopt, 4});
    expect_limits("errors removed", kErrorsRemoved, {std::nullopt, std::nullopt, std::nullopt});
}

TEST(FormatsHostConfig, ShapesAndEdges) {
    // A commented-out check is no check.
    expect_limits("// #error", "#if __GNUC__ > 9\n// #error -- unsupported GNU version! later than 9\n#endif\n", {});
    expect_limits("/* #error */", "#if __GNUC__ > 9\n/*\n#error -- unsupported GNU version!\n*/\n#endif\n", {});
    // `>=` bounds, backslash-continued conditions, #elif.
    expect_limits(">=", "#if __GNUC__ >= 14\n#error -- unsupported GNU version!\n#endif\n", {13, {}, {}});
    expect_limits("continued", "#if __GNUC__ \\\n  > 12\n#error -- unsupported GNU version!\n#endif\n", {12, {}, {}});
    expect_limits("elif", "#if X\n#elif __GNUC__ > 7\n#error -- unsupported GNU version!\n#endif\n", {7, {}, {}});
    // An #else branch has no usable condition; the message is read instead.
    expect_limits("else",
                  "#if __GNUC__ <= 6\n#else\n#error -- unsupported GNU version! gcc versions later than 6 "
                  "are not supported!\n#endif\n",
                  {6, {}, {}});
    expect_limits("clang message",
                  "#ifdef __clang__\n#error -- unsupported clang version! clang version must be "
                  "less than 17 and greater than 3.2\n#endif\n",
                  {std::nullopt, 16, std::nullopt});
    // Only the first check of each kind counts.
    expect_limits("twice",
                  "#if __GNUC__ > 9\n#error -- unsupported GNU version!\n#endif\n#if __GNUC__ > 3\n"
                  "#error -- unsupported GNU version!\n#endif\n",
                  {9, {}, {}});
    // An #error outside any #if, or a condition with no upper bound.
    expect_limits("bare error", "#error -- unsupported GNU version!\n", {});
    expect_limits("lower bound", "#if __GNUC__ < 5\n#error -- unsupported GNU version!\n#endif\n", {});
    expect_limits("absurd", "#if __GNUC__ > 99999999999999999999\n#error -- unsupported GNU version!\n#endif\n", {});
    expect_limits("negative", "#if __GNUC__ >= 0\n#error -- unsupported GNU version!\n#endif\n", {});
}

TEST(FormatsHostConfig, GarbageGivesNothing) {
    expect_limits("empty", "", {});
    expect_limits("junk", std::string("\0\xff\x01#if\n#error\n#endif\n#endif\n#else\n/*", 28), {});
    expect_limits("unterminated comment", "#if __GNUC__ > 9\n/* #error -- unsupported GNU version!", {});
    const std::string_view cuda130(kCuda130);
    expect_limits("half a file", cuda130.substr(0, cuda130.find("#error -- unsupported GNU") + 20), {});
    expect_limits("stray endifs", "#endif\n#endif\n#elif __GNUC__ > 3\n#error -- unsupported GNU version!\n", {});
    expect_limits("deep", std::string(100000, '\n') + std::string(5000, '#') + "if\n", {});
}

// One long #if line with many #error lines under it must not be re-read for every #error.
TEST(FormatsHostConfig, HostileInputStaysLinear) {
    std::string text = "#if " + std::string(200000, 'x') + " > 1\n";
    for (int i = 0; i < 100000; ++i) text += "#error -- unsupported GNU version! unsupported clang version!\n";
    expect_limits("long condition", text, {});
}

}  // namespace
}  // namespace cudoctor::formats
