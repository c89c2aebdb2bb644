// The OpenCV configure-log parser on real logs from public bug reports (tests/fixtures/opencv/,
// each naming its source) and on Debian's own cv2 build information.

#include <gtest/gtest.h>

#include "formats/cmake_log.hpp"
#include "support/files.hpp"

namespace cudoctor::formats {
namespace {

std::string fixture(const std::string& name) {
    auto text = test::read_if_present(std::string(CUDOCTOR_SOURCE_DIR) + "/tests/fixtures/opencv/" + name);
    EXPECT_TRUE(text) << name;
    return text.value_or("");
}

using Strings = std::vector<std::string>;

TEST(OpencvCmakeLog, CudaAndCudnnFoundWithPythonAndNumpy) {
    const auto log = parse_opencv_build_log(fixture("cuda11_cudnn8_zoneminder.log"));
    EXPECT_TRUE(log.has_cuda_line);
    EXPECT_TRUE(log.cuda);
    EXPECT_EQ(log.cuda_version, "11.0");
    EXPECT_EQ(log.cuda_features, (Strings{"CUFFT", "CUBLAS", "FAST_MATH"}));
    EXPECT_EQ(log.gpu_archs, (Strings{"35", "37", "50", "52", "60", "61", "70", "75", "80"}));
    EXPECT_TRUE(log.has_gpu_arch_line);
    EXPECT_TRUE(log.ptx_archs.empty());
    EXPECT_TRUE(log.cudnn);
    EXPECT_EQ(log.cudnn_version, "8.0.4");
    ASSERT_TRUE(log.python3);
    EXPECT_EQ(log.python3->interpreter, "/usr/bin/python3 (ver 3.6.9)");
    EXPECT_EQ(log.python3->numpy, "/usr/local/lib/python3.6/dist-packages/numpy/core/include (ver 1.19.2)");
    EXPECT_TRUE(log.python3->numpy_found());
    EXPECT_TRUE(log.python3->libraries_found());
    EXPECT_FALSE(log.has_summary);  // the excerpt starts after the heading
}

TEST(OpencvCmakeLog, EarlyMessagesAndSummaryOfOneLog) {
    const auto log = parse_opencv_build_log(fixture("cuda12_arch86_dnn_24137.log"));
    EXPECT_EQ(log.cuda_detected, "12.0");
    EXPECT_EQ(log.gpu_archs, (Strings{"86"}));
    EXPECT_EQ(log.cudnn_version, "8.8.1");
    ASSERT_NE(log.find("OpenJPEG"), nullptr);
    EXPECT_FALSE(log.find("openjpeg")->found);
    ASSERT_NE(log.find("ZLIB"), nullptr);
    EXPECT_TRUE(log.find("ZLIB")->found);
    EXPECT_EQ(log.find("ZLIB")->detail,
              "/usr/lib/x86_64-linux-gnu/libz.so (found suitable version \"1.2.11\", minimum required is \"1.2.3\")");
    ASSERT_TRUE(log.python3);  // the block heading is the last line: present, empty
    EXPECT_FALSE(log.python3->numpy_found());
}

TEST(OpencvCmakeLog, CouldNotFindCudnnAndNotfoundVariables) {
    const auto log = parse_opencv_build_log(fixture("cudnn_not_found_16449.log"));
    ASSERT_NE(log.find("CUDNN"), nullptr);
    EXPECT_FALSE(log.find("CUDNN")->found);
    EXPECT_EQ(log.find("CUDNN")->detail,
              "(missing: CUDNN_LIBRARY CUDNN_INCLUDE_DIR) (found suitable version \"7.5.0\", minimum required is \"7.5\")");
    EXPECT_TRUE(log.cuda);
    EXPECT_EQ(log.cuda_version, "10.0");
    EXPECT_TRUE(log.cuda_features.empty());  // "no extra features"
    EXPECT_TRUE(log.has_cudnn_line);
    EXPECT_FALSE(log.cudnn);
    ASSERT_EQ(log.errors.size(), 1u);
    EXPECT_EQ(log.errors[0].where, "");
    EXPECT_EQ(log.errors[0].text, "The following variables are used in this project, but they are set to NOTFOUND.");
}

TEST(OpencvCmakeLog, EmptyArchListAndErrorMessageLines) {
    const auto log = parse_opencv_build_log(fixture("empty_arch_25742.log"));
    EXPECT_TRUE(log.has_gpu_arch_line);
    EXPECT_TRUE(log.gpu_archs.empty());
    EXPECT_EQ(log.cuda_features, (Strings{"CUFFT", "CUBLAS", "NVCUVID", "NVCUVENC"}));
    ASSERT_EQ(log.errors.size(), 1u);
    EXPECT_EQ(log.errors[0].where, "cmake/OpenCVDetectCUDAUtils.cmake:297 (list)");
    EXPECT_EQ(log.errors[0].text, "list GET given empty list");
    EXPECT_EQ(log.errors[0].line, 4u);
    EXPECT_TRUE(log.configuring_incomplete);
    EXPECT_EQ(log.python_for_build, "NO");
    EXPECT_EQ(log.install_to, "D:/opencv/build/install");
}

TEST(OpencvCmakeLog, WrappedErrorMessageJoined) {
    const auto log = parse_opencv_build_log(fixture("dnn_cc53_15930.log"));
    ASSERT_EQ(log.errors.size(), 1u);
    EXPECT_EQ(log.errors[0].where, "modules/dnn/CMakeLists.txt:97 (message)");
    EXPECT_EQ(log.errors[0].text,
              "CUDA backend for DNN module requires CC 5.3 or higher.  Please remove unsupported architectures from CUDA_ARCH_BIN option.");
    EXPECT_TRUE(log.configuring_incomplete);
    const auto cudnn = parse_opencv_build_log(fixture("dnn_requires_cudnn_chrismeunier5.log"));
    ASSERT_EQ(cudnn.errors.size(), 1u);
    EXPECT_EQ(cudnn.errors[0].text, "DNN: CUDA backend requires cuDNN.  Please resolve dependency or disable OPENCV_DNN_CUDA=OFF");
}

TEST(OpencvCmakeLog, BuildKitPrefixesAndModuleLists) {
    const auto log = parse_opencv_build_log(fixture("buildkit_modules_opencv_cuda_docker10.log"));
    EXPECT_TRUE(log.builds("cudaarithm"));
    EXPECT_TRUE(log.builds("python3"));
    EXPECT_EQ(log.to_be_built.size(), 71u);
    EXPECT_EQ(log.disabled, (Strings{"world"}));
    EXPECT_TRUE(log.disabled_by_dependency.empty());  // "-"
    EXPECT_EQ(log.unavailable, (Strings{"cvv", "java", "julia", "matlab", "ovis", "ts"}));
}

TEST(OpencvCmakeLog, PythonTwoAndThreeBlocksKeptApart) {
    const auto log = parse_opencv_build_log(fixture("jetson_python2_and_3_qengineering6.log"));
    ASSERT_TRUE(log.python2);
    ASSERT_TRUE(log.python3);
    EXPECT_EQ(log.python2->interpreter, "/usr/bin/python2.7 (ver 2.7.17)");
    EXPECT_EQ(log.python3->interpreter, "/usr/bin/python3 (ver 3.6.9)");
    EXPECT_EQ(log.python3->install_path, "lib/python3.6/dist-packages/cv2/python-3.6");
    EXPECT_EQ(log.python_for_build, "/usr/bin/python2.7");
    EXPECT_EQ(log.gpu_archs, (Strings{"53"}));
}

TEST(OpencvCmakeLog, OpenCv3Format) {
    const auto log = parse_opencv_build_log(fixture("opencv3_old_format_9932.log"));
    EXPECT_TRUE(log.cuda);
    EXPECT_EQ(log.cuda_version, "7.5");
    EXPECT_EQ(log.gpu_archs, (Strings{"20", "21", "30", "35"}));
    EXPECT_EQ(log.ptx_archs, (Strings{"30"}));
}

TEST(OpencvCmakeLog, CudaNotDetected) {
    const auto log = parse_opencv_build_log(fixture("cuda_not_detected_pr23021.log"));
    EXPECT_TRUE(log.cuda_not_detected);
    EXPECT_FALSE(log.has_cuda_line);
}

TEST(OpencvCmakeLog, PythonUnavailableOnlyForBuild) {
    const auto log = parse_opencv_build_log(fixture("python3_unavailable_23720.log"));
    EXPECT_FALSE(log.python3);
    EXPECT_EQ(log.python_for_build, "D:/Python/Python310/python.exe");
    EXPECT_EQ(log.unavailable.size(), 12u);
    EXPECT_TRUE(log.configuring_done);
}

TEST(OpencvCmakeLog, DebianBuildInformationWithoutCuda) {
    const auto log = parse_opencv_build_log(fixture("debian12_python3_opencv_4.6.0_build_information.txt"));
    EXPECT_TRUE(log.has_summary);
    EXPECT_EQ(log.opencv_version, "4.6.0");
    EXPECT_FALSE(log.has_cuda_line);
    EXPECT_FALSE(log.cuda);
    EXPECT_TRUE(log.builds("dnn"));
    EXPECT_EQ(log.disabled, (Strings{"python3", "world"}));
    EXPECT_EQ(log.unavailable.front(), "cudaarithm");
    EXPECT_EQ(log.cxx_compiler, "/usr/bin/c++  (ver 12.2.0)");
    EXPECT_EQ(log.python_for_build, "/usr/bin/python3");
}

TEST(OpencvCmakeLog, NumpyNoAsOpenCvPrintsIt) {
    // The status line of OpenCV's CMakeLists.txt when numpy is missing (quoted in
    // https://github.com/opencv/opencv/issues/8449): "NO (Python3 wrappers can not be generated)".
    const auto log = parse_opencv_build_log(
        "--   Python 3:\n"
        "--     Interpreter:                 /usr/bin/python3 (ver 3.10.12)\n"
        "--     Libraries:                   NO\n"
        "--     numpy:                       NO (Python3 wrappers can not be generated)\n"
        "--     install path:                -\n"
        "-- \n"
        "--   Python (for build):            /usr/bin/python3\n");
    ASSERT_TRUE(log.python3);
    EXPECT_FALSE(log.python3->numpy_found());
    EXPECT_FALSE(log.python3->libraries_found());
    EXPECT_EQ(log.python3->install_path, "-");
    EXPECT_EQ(log.python_for_build, "/usr/bin/python3");
}

TEST(OpencvCmakeLog, NotALogGivesNothing) {
    for (std::string_view junk : {std::string_view(""), std::string_view("hello world\n"),
                                  std::string_view("\x7f"
                                                   "ELF\x02\x01\x01\0\0\0",
                                                   10),
                                  std::string_view("::::\n:\n-- :\n#1 2 3\n")}) {
        const auto log = parse_opencv_build_log(junk);
        EXPECT_FALSE(log.has_summary);
        EXPECT_FALSE(log.has_cuda_line);
        EXPECT_TRUE(log.errors.empty());
        EXPECT_TRUE(log.to_be_built.empty());
    }
}

TEST(OpencvCmakeLog, HostileSizesAreCapped) {
    std::string many;
    for (int i = 0; i < 1000; ++i) many += "CMake Error: number " + std::to_string(i) + "\n";
    many += "  To be built: " + std::string(100000, 'x') + "\n";
    const auto log = parse_opencv_build_log(many);
    EXPECT_EQ(log.errors.size(), OpencvBuildLog::kMaxItems);
    ASSERT_EQ(log.to_be_built.size(), 1u);
    EXPECT_EQ(log.to_be_built[0].size(), OpencvBuildLog::kMaxValue);
}

}  // namespace
}  // namespace cudoctor::formats
