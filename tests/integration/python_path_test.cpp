// A relative --python, through the real binary: taken from the working folder on this machine (as
// the shell that typed it would), refused with one line and exit 2 in an image (--root), which
// has no working folder; `check --python` and `opencv check --python` agree.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "integration/run_cudoctor.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test::python_path {

/// cudoctor ARGS… run from `dir`, as a user typing it there.
RunResult run_in(const TempDir& dir, const std::vector<std::string>& args) {
    std::string line = "cd '" + dir.str() + "' && exec \"$0\"";
    for (std::size_t i = 0; i < args.size(); ++i) line += " \"$" + std::to_string(i + 1) + "\"";
    std::vector<std::string> argv{"-c", line, CUDOCTOR_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_program("/bin/sh", argv, outside_environment(), std::chrono::seconds(30));
}

/// An interpreter that answers as a Python without cv2 does to `opencv check`.
void write_py3(const TempDir& dir) {
    dir.write("py3", "#!/bin/sh\necho '{\"import_error\": \"ModuleNotFoundError: No module named cv2\"}'\n", true);
}

TEST(PythonPath, OpencvCheckTakesARelativeInterpreterFromTheWorkingFolder) {
    TempDir dir;
    write_py3(dir);
    const auto run = run_in(dir, {"opencv", "check", "--python", "./py3", "--gpu", "8.9"});
    EXPECT_EQ(run.exit_code, 1) << run.describe() << run.err;  // cv2 is missing: a problem, not a usage error
    EXPECT_EQ(run.err, "");
    EXPECT_NE(run.out.find("cv2 of " + dir.str() + "/py3\n"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("import cv2 failed: ModuleNotFoundError"), std::string::npos) << run.out;
}

TEST(PythonPath, AMissingRelativeInterpreterIsOneLineAndExit2) {
    TempDir dir;
    for (const std::string command : {"check", "opencv check"}) {
        std::vector<std::string> args;
        if (command == "check") args = {"check", "--python", "./nope"};
        else args = {"opencv", "check", "--python", "./nope", "--gpu", "8.9"};
        const auto run = run_in(dir, args);
        EXPECT_EQ(run.exit_code, 2) << command << ": " << run.describe();
        EXPECT_EQ(run.err, "cudoctor " + command + ": --python ./nope: no such file (" + dir.str() + "/nope)\n") << command;
        EXPECT_EQ(run.out, "") << command;
    }
}

TEST(PythonPath, CheckTakesARelativeInterpreterFromTheWorkingFolderToo) {
    TempDir dir;
    write_py3(dir);
    const auto run = run_in(dir, {"check", "--python", "./py3", "--json"});
    EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.describe() << run.err;
    EXPECT_EQ(run.err.find("no such file"), std::string::npos) << run.err;
}

TEST(PythonPath, ARelativeInterpreterInAnImageIsRefused) {
    TempDir dir;
    write_py3(dir);
    const std::string root = std::string(CUDOCTOR_ROOTS_DIR) + "/ubuntu2204-rtx4060ti";
    for (const std::string command : {"check", "opencv cmake"}) {
        std::vector<std::string> args;
        if (command == "check") args = {"check", "--root", root, "--python", "py3"};
        else args = {"opencv", "cmake", "--root", root, "--python", "py3"};
        const auto run = run_in(dir, args);  // py3 is in the working folder, but the image has none
        EXPECT_EQ(run.exit_code, 2) << command << ": " << run.describe();
        EXPECT_EQ(run.err, "cudoctor " + command + ": --python py3: a relative path means nothing in the image " + root +
                               ": give the interpreter's absolute path inside it (/usr/bin/python3)\n")
            << command;
    }
}

}  // namespace cudoctor::test::python_path
