// One error convention for every subcommand, through the real binary: with --json the error is one
// JSON object {"error": {"code", "message"}} on stdout (where a --json consumer reads) and nothing
// on stderr; without it, one line "cudoctor COMMAND: message" on stderr and nothing on stdout.
// Exit status 2 either way.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/temp_dir.hpp"

namespace {

using cudoctor::test::run_cudoctor;

struct Failing {
    std::string command;            ///< as it names itself in the text form
    std::vector<std::string> args;  ///< a run that cannot succeed (no --json)
};

const std::vector<Failing>& failing_runs() {
    static const std::vector<Failing> runs = {
        {"check", {"check", "--root", "/nonexistent/machine"}},
        {"explain", {"explain", "--log", "/nonexistent/build.log"}},
        {"verify", {"verify", "--snapshot", "/nonexistent/verify.json"}},
        {"verify-installer", {"verify-installer", "/nonexistent/cuda_12.4.1_550.54.15_linux.run"}},
        {"compare", {"compare", "/nonexistent/ref.safetensors", "/nonexistent/test.safetensors"}},
        {"list", {"list", "--root", "/nonexistent/machine"}},
        {"switch", {"switch", "12.4", "--root", "/nonexistent/machine"}},
        {"uninstall", {"uninstall", "12.4", "--root", "/nonexistent/machine"}},
        {"modulefile", {"modulefile", "12.4", "--root", "/nonexistent/machine"}},
        {"opencv log", {"opencv", "log", "/nonexistent/CMakeCache.log"}},
        {"watch", {"watch", "report", "/nonexistent/run"}},
        {"fleet", {"fleet", "/nonexistent/snapshots"}},
        {"inventory", {"inventory", "/nonexistent/ref.safetensors"}},
        {"plan", {"plan", "--gpu", "RTX 9999", "--framework", "torch==2.4"}},
    };
    return runs;
}

TEST(ErrorsCli, JsonErrorIsOneObjectOnStdoutAndNothingOnStderr) {
    for (const auto& f : failing_runs()) {
        SCOPED_TRACE(f.command);
        auto args = f.args;
        args.emplace_back("--json");
        const auto run = run_cudoctor(args);
        EXPECT_EQ(run.exit_code, 2) << run.describe() << run.err;
        const auto j = nlohmann::json::parse(run.out, nullptr, false);
        ASSERT_TRUE(j.is_object()) << "stdout is no JSON object:\n" << run.out;
        ASSERT_TRUE(j.contains("error")) << run.out;
        EXPECT_TRUE(j["error"]["code"].is_string()) << run.out;
        EXPECT_FALSE(j["error"]["message"].get<std::string>().empty()) << run.out;
        EXPECT_TRUE(run.err.empty()) << run.err;
    }
}

TEST(ErrorsCli, WhatWasAskedForAndCannotBeIsAnErrorNotSilence) {
    // A --python that is not there, and an override that does not parse, were silently dropped.
    const auto python = run_cudoctor({"check", "--python", "/nonexistent/python3"});
    EXPECT_EQ(python.exit_code, 2) << python.out;
    EXPECT_NE(python.err.find("--python /nonexistent/python3: no such file"), std::string::npos) << python.err;
    const std::string root = std::string(CUDOCTOR_ROOTS_DIR) + "/ubuntu2204-rtx4060ti";
    for (const std::string var : {"CUDOCTOR_OVERRIDE_CUDA", "CUDOCTOR_OVERRIDE_DRIVER_VERSION", "CUDOCTOR_OVERRIDE_TIME"}) {
        auto env = cudoctor::test::outside_environment();
        env.push_back(var + "=banana");
        const auto run = cudoctor::test::run_program(CUDOCTOR_BINARY, {"check", "--root", root}, env, std::chrono::seconds(30));
        EXPECT_EQ(run.exit_code, 2) << var << run.out;
        EXPECT_NE(run.err.find(var + "='banana'"), std::string::npos) << run.err;
    }
}

TEST(ErrorsCli, ParseErrorsWithJsonAreTheSameObject) {
    // CLI11's own errors (an unknown option, a missing value, a bad value) keep the contract too.
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"check", "--json", "--bogus"}, std::vector<std::string>{"arch", "/bin/true", "--json", "--gpu"},
          std::vector<std::string>{"compare", "a", "b", "--json", "--rtol", "-1"}}) {
        SCOPED_TRACE(args.front());
        const auto run = run_cudoctor(args);
        EXPECT_EQ(run.exit_code, 2) << run.describe() << run.err;
        const auto j = nlohmann::json::parse(run.out, nullptr, false);
        ASSERT_TRUE(j.is_object() && j.contains("error")) << "stdout is no JSON error:\n" << run.out << run.err;
        EXPECT_EQ(j["error"]["code"], "usage error") << run.out;
        EXPECT_TRUE(run.err.empty()) << run.err;
    }
    EXPECT_EQ(run_cudoctor({"check", "--json", "--help"}).exit_code, 0);  // help is no error
}

TEST(ErrorsCli, TextErrorIsOneLineOnStderrNamingTheCommand) {
    for (const auto& f : failing_runs()) {
        SCOPED_TRACE(f.command);
        const auto run = run_cudoctor(f.args);
        EXPECT_EQ(run.exit_code, 2) << run.describe() << run.err;
        EXPECT_TRUE(run.out.empty()) << run.out;
        EXPECT_EQ(run.err.rfind("cudoctor " + f.command + ": ", 0), 0u) << run.err;
        EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    }
}

// A folder given where a saved report is read is the same I/O error for check and verify (one
// reader, host::read_capped_or_pipe), not a parse error of whatever an ifstream made of it.
TEST(ErrorsCli, FolderAsSavedReportIsTheSameIoErrorForCheckAndVerify) {
    cudoctor::test::TempDir folder;
    for (const std::string command : {"check", "verify"}) {
        SCOPED_TRACE(command);
        const auto text = run_cudoctor({command, "--snapshot", folder.str()});
        EXPECT_EQ(text.exit_code, 2) << text.describe() << text.err;
        EXPECT_EQ(text.err, "cudoctor " + command + ": " + folder.str() + ": not a regular file or pipe\n");
        const auto json = run_cudoctor({command, "--snapshot", folder.str(), "--json"});
        EXPECT_EQ(json.exit_code, 2) << json.describe() << json.err;
        const auto j = nlohmann::json::parse(json.out, nullptr, false);
        ASSERT_TRUE(j.is_object()) << json.out;
        EXPECT_EQ(j["error"]["code"], "I/O error") << json.out;
    }
}

}  // namespace
