// gpucode::expand_inputs on a real folder: what `arch` arguments become, and the folder that
// holds nothing to read, said there (not by the command) so every caller hears it.
#include <gtest/gtest.h>

#include <filesystem>

#include "gpucode/inputs.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test::arch_inputs {

namespace fs = std::filesystem;

TEST(ArchInputs, AnEmptyFolderIsAnError) {
    TempDir dir;
    fs::create_directories(dir.path() / "empty");
    const std::string empty = (dir.path() / "empty").string();
    const auto e = gpucode::expand_inputs(host::Host::real(), {empty}, {});
    EXPECT_TRUE(e.files.empty());
    ASSERT_EQ(e.errors.size(), 1u);
    EXPECT_EQ(e.errors[0].first, empty);
    EXPECT_EQ(e.errors[0].second.code, Errc::not_found);
    EXPECT_EQ(e.errors[0].second.message, empty + ": no ELF files (libraries, executables, objects) in this folder");
}

TEST(ArchInputs, AFolderOfDataFilesIsEmptyToo) {
    TempDir dir;
    dir.write("docs/readme.txt", "text");
    dir.write("docs/data.bin", "bytes");
    const auto e = gpucode::expand_inputs(host::Host::real(), {(dir.path() / "docs").string()}, {});
    ASSERT_EQ(e.errors.size(), 1u);
    EXPECT_NE(e.errors[0].second.message.find("no ELF files"), std::string::npos);
}

TEST(ArchInputs, AFolderWhoseFilesAnotherArgumentReachedFirstIsNotEmpty) {
    TempDir dir;
    const auto lib = dir.write("lib/libx.so", "not read here");
    const auto e = gpucode::expand_inputs(host::Host::real(), {lib.string(), (dir.path() / "lib").string()}, {});
    EXPECT_TRUE(e.errors.empty()) << e.errors.front().second.message;
    ASSERT_EQ(e.files.size(), 1u);  // scanned once
    EXPECT_TRUE(e.files[0].named);
}

TEST(ArchInputs, AFolderWithACandidateIsNoError) {
    TempDir dir;
    dir.write("lib/run.sh", "#!/bin/sh\n", true);  // executable: a candidate, even if no ELF
    const auto e = gpucode::expand_inputs(host::Host::real(), {(dir.path() / "lib").string()}, {});
    EXPECT_TRUE(e.errors.empty());
    EXPECT_EQ(e.files.size(), 1u);
}

}  // namespace cudoctor::test::arch_inputs
