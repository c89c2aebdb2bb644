// `cudoctor opencv log|cmake|check` run as the real binary: real configure logs from public bug
// reports, a fixture machine for the CMake line, Debian's own cv2 for check, and bad input
// (missing files, folders, junk, an interpreter that hangs or is no Python).
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/mutable_root.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test {
namespace {

std::string fixture(const std::string& name) { return std::string(CUDOCTOR_SOURCE_DIR) + "/tests/fixtures/opencv/" + name; }

const nlohmann::json* verdict(const nlohmann::json& j, std::string_view topic) {
    for (const auto& v : j["verdicts"])
        if (v["topic"] == topic) return &v;
    return nullptr;
}

TEST(OpencvCli, LogJudgesTheArchListForTheGivenGpu) {
    auto run = run_cudoctor({"opencv", "log", fixture("cuda12_arch86_dnn_24137.log"), "--gpu", "9.0", "--json"});
    ASSERT_EQ(run.exit_code, 1) << run.describe() << run.err;
    const auto j = nlohmann::json::parse(run.out);
    EXPECT_EQ(j["cuda_version"], "12.0");
    ASSERT_NE(verdict(j, "GPU architectures"), nullptr);
    EXPECT_EQ((*verdict(j, "GPU architectures"))["status"], "failed");
    EXPECT_EQ((*verdict(j, "GPU architectures"))["fix"], "-D CUDA_ARCH_BIN=9.0");

    // The same log for the GPU it was built for: nothing skipped.
    auto fine = run_cudoctor({"opencv", "log", "--gpu", "8.6", fixture("cuda12_arch86_dnn_24137.log")});
    EXPECT_EQ(fine.exit_code, 0) << fine.out << fine.err;
    EXPECT_NE(fine.out.find("✓ cuDNN: YES, cuDNN 8.8.1"), std::string::npos) << fine.out;
}

TEST(OpencvCli, LogSaysWhatWasSkippedAndHowToFixIt) {
    auto run = run_cudoctor({"opencv", "log", fixture("cudnn_no_20319.log"), "--gpu", "7.5"});
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_NE(run.out.find("✗ cuDNN: skipped — NO"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("✗ DNN CUDA backend: skipped"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("fix: sudo apt-get install -y libcudnn9-dev-cuda-11"), std::string::npos) << run.out;
}

TEST(OpencvCli, BuildLogKilledCompilerIsTheRootWhateverFollows) {
    // Real build logs (tests/fixtures/errors/build-oom-killed): a bare "Killed" after OpenCV's
    // 97 %, and gcc's "internal compiler error: Killed (program cc1plus)".
    const std::string errors = std::string(CUDOCTOR_SOURCE_DIR) + "/tests/fixtures/errors/build-oom-killed/";
    for (const std::string name : {"jep-8.log", "nano-build-opencv-11.log", "opencvsharp-1319.log"}) {
        SCOPED_TRACE(name);
        auto run = run_cudoctor({"opencv", "log", errors + name, "--json"});
        EXPECT_EQ(run.exit_code, 1) << run.describe() << run.err;
        const auto j = nlohmann::json::parse(run.out);
        ASSERT_NE(verdict(j, "build"), nullptr) << j.dump(2);
        EXPECT_EQ((*verdict(j, "build"))["status"], "failed");
        EXPECT_NE((*verdict(j, "build"))["reason"].get<std::string>().find("ran out of memory"), std::string::npos);
        EXPECT_NE((*verdict(j, "build"))["fix"].get<std::string>().find("-j N"), std::string::npos);
        EXPECT_EQ(verdict(j, "configure"), nullptr) << "FindCUDA's 'Error generating file' is the build step's wrapper";
    }
}

TEST(OpencvCli, BuildLogNamesTheFirstErrorAndAMissingCudnnHeader) {
    auto first = run_cudoctor({"opencv", "log", fixture("build_first_error_made_here.log")});
    EXPECT_EQ(first.exit_code, 1) << first.err;
    EXPECT_NE(first.out.find("✗ build: FAILED — line 7: /home/u/opencv/modules/core/src/alloc.cpp:52:10: error: 'posix_memalign'"),
              std::string::npos)
        << first.out;
    EXPECT_EQ(first.out.find("'ptr' was not declared"), std::string::npos) << "only the first error: the rest follow from it";

    auto header = run_cudoctor({"opencv", "log", fixture("build_cudnn_version_h_darknet_2356.log"), "--json"});
    EXPECT_EQ(header.exit_code, 1) << header.err;
    const auto j = nlohmann::json::parse(header.out);
    ASSERT_NE(verdict(j, "build"), nullptr) << j.dump(2);
    EXPECT_NE((*verdict(j, "build"))["reason"].get<std::string>().find("cudnn_version.h is not where the compiler looks"), std::string::npos);
    EXPECT_NE((*verdict(j, "build"))["fix"].get<std::string>().find("cuDNN"), std::string::npos);
    EXPECT_NE((*verdict(j, "build"))["summary"].get<std::string>().find("line 10: /usr/local/cuda/include/cudnn.h:60:10: fatal error"),
              std::string::npos);
}

TEST(OpencvCli, CmakeSaysSeveralArchitecturesMultiplyTheCudaBuild) {
    const std::string root = std::string(CUDOCTOR_ROOTS_DIR) + "/ubuntu2204-rtx4060ti";
    auto two = run_cudoctor({"opencv", "cmake", "--root", root, "--gpu", "8.9", "--gpu", "7.5"});
    EXPECT_NE(two.out.find("-D CUDA_ARCH_BIN=7.5,8.9"), std::string::npos) << two.out;
    EXPECT_NE(two.out.find("2 architectures in CUDA_ARCH_BIN: nvcc compiles each of OpenCV's CUDA files 2 times"), std::string::npos)
        << two.out;
    auto one = run_cudoctor({"opencv", "cmake", "--root", root, "--gpu", "8.9"});
    EXPECT_EQ(one.out.find("architectures in CUDA_ARCH_BIN"), std::string::npos) << one.out;
}

TEST(OpencvCli, LogBadInputIsOneLineAndExit2) {
    TempDir tmp;
    const auto junk = tmp.write("junk.log", std::string("\x7f"
                                                        "ELF\x02\x01\x01\0garbage\nno: summary here\n",
                                                        33));
    struct Case {
        std::string path, message;
    } cases[] = {
        {tmp.str() + "/missing.log", "missing.log: No such file or directory"},
        {tmp.str(), "not a regular file"},
        {junk.string(), "no OpenCV CMake output in it"},
    };
    for (const auto& c : cases) {
        auto run = run_cudoctor({"opencv", "log", c.path, "--gpu", "8.9"});
        EXPECT_EQ(run.exit_code, 2) << c.path << run.describe();
        EXPECT_NE(run.err.find(c.message), std::string::npos) << run.err;
        EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
        EXPECT_TRUE(run.out.empty());
    }
    auto json = run_cudoctor({"opencv", "log", tmp.str() + "/missing.log", "--json"});
    EXPECT_EQ(json.exit_code, 2);
    EXPECT_EQ(nlohmann::json::parse(json.out)["error"]["code"], "not found");
}

TEST(OpencvCli, CmakeForTheFixtureMachine) {
    MutableRoot root("ubuntu2204-rtx4060ti");
    root.write("/proc/meminfo", "MemTotal:       16318384 kB\nMemFree:         2000000 kB\nMemAvailable:   12582912 kB\n");
    root.write("/sys/devices/system/cpu/online", "0-15\n");
    auto run = run_cudoctor({"opencv", "cmake", "--root", root.path().string(), "--src", "/home/alice/opencv", "--contrib",
                             "/home/alice/opencv_contrib", "--json"});
    ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.describe() << run.err;
    const auto j = nlohmann::json::parse(run.out);
    std::map<std::string, std::string> defines;
    for (const auto& d : j["defines"]) defines[d["name"]] = d["value"];
    EXPECT_EQ(defines["CUDA_ARCH_BIN"], "8.9");
    EXPECT_EQ(defines["CUDA_ARCH_PTX"], "");
    EXPECT_EQ(defines["CUDA_TOOLKIT_ROOT_DIR"], "/usr/local/cuda-12.4");
    EXPECT_EQ(defines["WITH_CUDA"], "ON");
    EXPECT_EQ(defines["OPENCV_DNN_CUDA"], "ON");
    EXPECT_EQ(defines["WITH_CUBLAS"], "ON");
    EXPECT_EQ(defines["OPENCV_EXTRA_MODULES_PATH"], "/home/alice/opencv_contrib/modules");
    EXPECT_EQ(defines["PYTHON3_EXECUTABLE"], "/usr/bin/python3");
    EXPECT_EQ(j["jobs"], 4);  // 12 GiB available / 3 GiB, fewer than the 16 cores
    EXPECT_EQ(j["jobs_why"], "16 cores, 12.0 GiB available memory / 3 GiB per nvcc job");
    EXPECT_EQ(j["build_command"], "cmake --build /home/alice/opencv/build -j 4");

    auto portable = run_cudoctor({"opencv", "cmake", "--root", root.path().string(), "--portable", "--gpu", "8.6", "--gpu", "7.5", "--json"});
    ASSERT_FALSE(portable.out.empty()) << portable.err;
    const auto p = nlohmann::json::parse(portable.out);
    for (const auto& d : p["defines"]) {
        if (d["name"] == "CUDA_ARCH_BIN") {
            EXPECT_EQ(d["value"], "7.5,8.6");
        }
        if (d["name"] == "CUDA_ARCH_PTX") {
            EXPECT_EQ(d["value"], "7.5");
        }
    }
}

TEST(OpencvCli, CmakeListsMissingMemoryAndNumpy) {
    MutableRoot root("ubuntu2204-rtx4060ti");
    root.remove("/proc/meminfo");
    auto run = run_cudoctor({"opencv", "cmake", "--root", root.path().string()});
    ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.describe() << run.err;
    EXPECT_NE(run.out.find("cmake -S opencv -B opencv/build"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("-D CUDA_ARCH_BIN=8.9"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("memory unknown"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("no --contrib"), std::string::npos) << run.out;
}

TEST(OpencvCli, CmakeWithoutAGpuAsksForOne) {
    auto run = run_cudoctor({"opencv", "cmake", "--root", std::string(CUDOCTOR_ROOTS_DIR) + "/vmware-no-gpu"});
    EXPECT_EQ(run.exit_code, 2) << run.describe() << run.out;
    EXPECT_NE(run.err.find("no NVIDIA GPU found on this machine: give --gpu"), std::string::npos) << run.err;
}

bool debian_cv2_present() {
    return std::filesystem::exists("/usr/bin/python3") && std::system("/usr/bin/python3 -c 'import cv2' >/dev/null 2>&1") == 0;
}

TEST(OpencvCliHost, CheckDebianCv2IsBuiltWithoutCuda) {
    if (!debian_cv2_present()) GTEST_SKIP() << "no cv2 for /usr/bin/python3 (apt-get install python3-opencv)";
    auto run = run_cudoctor({"opencv", "check", "--python", "/usr/bin/python3", "--json"});
    ASSERT_EQ(run.exit_code, 1) << run.describe() << run.err;
    const auto j = nlohmann::json::parse(run.out);
    EXPECT_EQ(j["import_error"], "");
    EXPECT_FALSE(j["version"].get<std::string>().empty());
    EXPECT_EQ(j["cuda_devices"], 0);
    EXPECT_EQ(j["build"]["cuda"], false);
    EXPECT_EQ(j["build"]["opencv_version"], j["version"]);
    ASSERT_NE(verdict(j["build"], "CUDA"), nullptr);
    EXPECT_EQ((*verdict(j["build"], "CUDA"))["summary"], "not part of this build");
    EXPECT_FALSE(j["libraries"].empty());  // the module and its libopencv_* read from the child's maps
}

TEST(OpencvCli, CheckInterpreterThatIsMissingHangsOrIsNoPython) {
    TempDir tmp;
    const auto hang = tmp.write("hang", "#!/bin/sh\nexec sleep 30\n", true);
    const auto loud = tmp.write("loud", "#!/bin/sh\necho 'this is not python'\n", true);
    // Only the hanging one gets a short limit: on a loaded machine under ASan even /bin/false has
    // taken over a second to start, which made this test fail on time, not on behaviour.
    struct Case {
        std::string python, timeout, message;
    } cases[] = {
        {tmp.str() + "/none", "10", "/none: "},
        {"/bin/false", "10", "exited with status 1"},
        {hang.string(), "1", "did not answer within 1 s (killed)"},
        {loud.string(), "10", "did not answer with cv2's facts: \"this is not python\""},
    };
    for (const auto& c : cases) {
        auto run = run_cudoctor({"opencv", "check", "--python", c.python, "--timeout", c.timeout, "--gpu", "8.9"}, std::chrono::seconds(40));
        EXPECT_FALSE(run.timed_out);
        EXPECT_EQ(run.exit_code, 2) << c.python << ": " << run.describe() << run.out;
        EXPECT_NE(run.err.find(c.message), std::string::npos) << run.err;
    }
}

}  // namespace
}  // namespace cudoctor::test
