// `check` on hostile machine images made at test time (things git cannot hold or should not:
// a 1 GiB file, a FIFO, a child process that never answers): it must finish, say what it could
// not read in one clear line each, and report what it could.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test {
namespace {

using nlohmann::json;

json check(const TempDir& root, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"check", "--root", root.str(), "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto run = run_cudoctor(args, std::chrono::seconds(60));
    EXPECT_FALSE(run.timed_out);
    EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.describe() << run.err;
    return json::parse(run.out);
}

std::vector<std::string> note_lines(const json& snap) {
    std::vector<std::string> out;
    for (const auto& n : snap["notes"]) out.push_back(n["path"].get<std::string>() + ": " + n["message"].get<std::string>());
    return out;
}

bool has_note(const json& snap, const std::string& path, const std::string& fragment) {
    for (const auto& line : note_lines(snap))
        if (line.starts_with(path) && line.find(fragment) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST(BadInput, HugeFileWhereASmallOneIsExpected) {
    TempDir t;
    t.write("usr/local/cuda-12.4/include/cuda.h", "#define CUDA_VERSION 12040\n");
    auto big = t.write("usr/local/cuda-12.4/version.json", "");
    ASSERT_EQ(::truncate(big.c_str(), 1LL << 30), 0);  // sparse: costs no disk
    auto snap = check(t);
    EXPECT_TRUE(has_note(snap, "/usr/local/cuda-12.4/version.json", "larger than")) << snap["notes"].dump(2);
    ASSERT_EQ(snap["toolkits"].size(), 1u);
    EXPECT_EQ(snap["toolkits"][0]["version"], "12.4");  // the next source, cuda.h, still answers
    EXPECT_EQ(snap["toolkits"][0]["version_source"], "cuda.h");
}

TEST(BadInput, FifoWhereAFileIsExpectedDoesNotHang) {
    TempDir t;
    t.mkdir("proc/driver/nvidia");
    ASSERT_EQ(::mkfifo((t.path() / "proc/driver/nvidia/version").c_str(), 0600), 0);
    t.mkdir("etc");
    ASSERT_EQ(::mkfifo((t.path() / "etc/os-release").c_str(), 0600), 0);
    auto snap = check(t);
    EXPECT_TRUE(has_note(snap, "/proc/driver/nvidia/version", "not a regular file")) << snap["notes"].dump(2);
    EXPECT_EQ(snap["driver"]["kernel_module_version"], "");
}

TEST(BadInput, AnImagesNvccIsNeverRunEvenAsTheLastResort) {
    // No version file, no cuda.h: on this machine the last resort is `nvcc --version`. In an image
    // nothing runs, not even that one (it would run here, as whoever runs cudoctor): the version
    // stays unknown and the note says why. (A hanging child is killed: OpencvCli's hang case.)
    TempDir t;
    const auto marker = t.path() / "nvcc-was-run";
    t.write("usr/local/cuda-12.4/bin/nvcc",
            "#!/bin/sh\ntouch '" + marker.string() +
                "'\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n"
                "echo 'Cuda compilation tools, release 12.4, V12.4.131'\nsleep 60\n",
            true);
    const auto start = std::chrono::steady_clock::now();
    auto snap = check(t);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
    EXPECT_FALSE(std::filesystem::exists(marker));
    EXPECT_TRUE(has_note(snap, "/usr/local/cuda-12.4/bin/nvcc --version", "not run: inside a machine image")) << snap["notes"].dump(2);
    ASSERT_EQ(snap["toolkits"].size(), 1u);
    EXPECT_EQ(snap["toolkits"][0]["has_nvcc"], true);
    EXPECT_EQ(snap["toolkits"][0]["version"], "");
}

TEST(BadInput, UnreadableRootIsAUsageErrorWithJson) {
    auto run = run_cudoctor({"check", "--root", "/nonexistent/machine", "--json"});
    EXPECT_EQ(run.exit_code, 2);
    auto err = json::parse(run.out);  // --json errors go where --json output goes
    EXPECT_EQ(err["error"]["code"], "not found");
    EXPECT_TRUE(run.err.empty()) << run.err;
}

TEST(BadInput, BrokenSnapshotIsAUsageError) {
    TempDir t;
    auto garbage = t.write("snap.json", "{\"schema\": 1, \"gpus\": 7}");
    auto run = run_cudoctor({"check", "--snapshot", garbage.string()});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.err.find("snapshot member of the wrong type"), std::string::npos) << run.err;
    auto newer = t.write("new.json", "{\"schema\": 99}");
    run = run_cudoctor({"check", "--snapshot", newer.string()});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.err.find("snapshot schema 99 is not supported"), std::string::npos) << run.err;
}

}  // namespace cudoctor::test
