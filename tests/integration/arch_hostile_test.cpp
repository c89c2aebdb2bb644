// `arch` on bad input: not an ELF, a truncated ELF, section headers past the end, fatbin sizes
// that overflow, a missing path, a FIFO. Each gives one clear line and no crash or hang.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/files.hpp"
#include "support/temp_dir.hpp"

using namespace cudoctor;

namespace {

using cudoctor::test::corpus;
using cudoctor::test::put;

/// Offset of the .nv_fatbin bytes in sass.o: the first container magic.
std::size_t fatbin_offset(const std::string& elf) { return elf.find(std::string("\x50\xed\x55\xba\x01\x00\x10\x00", 8)); }

}  // namespace

TEST(ArchHostile, NotAnElfNamedIsAnError) {
    test::TempDir dir;
    const auto script = dir.write("run.sh", "#!/bin/sh\necho hi\n");
    auto run = test::run_cudoctor({"arch", "--gpu", "8.9", script.string()});
    EXPECT_EQ(run.exit_code, 2) << run.describe();
    EXPECT_EQ(run.err, "cudoctor arch: " + script.string() + ": not an ELF file\n");
    auto j = test::run_cudoctor({"arch", "--json", "--gpu", "8.9", script.string()});
    EXPECT_EQ(j.exit_code, 2);
    auto parsed = nlohmann::json::parse(j.out);
    EXPECT_EQ(parsed["errors"][0]["code"], "unparseable");
}

TEST(ArchHostile, NotAnElfInAWalkIsSkipped) {
    test::TempDir dir;
    dir.write("lib/run.sh", "#!/bin/sh\n", true);
    dir.write("lib/libfake.so", "this is no ELF");
    dir.write("lib/notes.txt", "text");
    auto run = test::run_cudoctor({"arch", "--gpu", "8.9", (dir.path() / "lib").string()});
    EXPECT_EQ(run.exit_code, 0) << run.describe() << run.err;
    EXPECT_NE(run.out.find("2 files skipped: not ELF"), std::string::npos) << run.out;
}

TEST(ArchHostile, TruncatedElf) {
    test::TempDir dir;
    const auto file = dir.write("cut.o", corpus("elf", "sass.o").substr(0, 40));
    auto run = test::run_cudoctor({"arch", "--gpu", "8.9", file.string()});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_EQ(run.err, "cudoctor arch: " + file.string() +
                           ": truncated ELF: file header (offset 0, 64 bytes) runs past the end of the file (40 bytes)\n");
}

TEST(ArchHostile, SectionHeadersPastTheEnd) {
    test::TempDir dir;
    std::string bytes = corpus("elf", "sass.o");
    put<std::uint64_t>(bytes, 0x28, 1ull << 40);
    const auto file = dir.write("far.o", bytes);
    auto run = test::run_cudoctor({"arch", "--gpu", "8.9", file.string()});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.err.find("truncated ELF: section header table (offset 1099511627776, 64 bytes) runs past the end of the file"),
              std::string::npos)
        << run.err;
}

TEST(ArchHostile, OverflowingFatbinSizes) {
    test::TempDir dir;
    std::string bytes = corpus("elf", "sass.o");
    const auto at = fatbin_offset(bytes);
    ASSERT_NE(at, std::string::npos);
    std::string container = bytes, entry = bytes;
    put<std::uint64_t>(container, at + 8, 0xFFFFFFFFFFFFFFF0ull);
    put<std::uint64_t>(entry, at + 16 + 8, 0xFFFFFFFFFFFFFF00ull);
    for (const auto& [name, content] : {std::pair<std::string, std::string>{"container.o", container}, {"entry.o", entry}}) {
        const auto file = dir.write(name, content);
        auto run = test::run_cudoctor({"arch", "--json", "--gpu", "8.9", file.string()});
        ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.describe() << run.err;
        auto j = nlohmann::json::parse(run.out);
        ASSERT_EQ(j["files"].size(), 1u) << run.out;
        const auto problems = j["files"][0]["problems"];
        ASSERT_EQ(problems.size(), 1u) << run.out;
        EXPECT_NE(problems[0].get<std::string>().find("runs past the end"), std::string::npos) << problems[0];
        EXPECT_TRUE(j["files"][0]["targets"].empty());  // nothing trusted from a corrupt container
        EXPECT_EQ(j["files"][0]["verdicts"][0]["verdict"], "cannot-run");
    }
}

TEST(ArchHostile, MissingPathFifoAndEmptyFile) {
    test::TempDir dir;
    const std::string fifo = (dir.path() / "pipe").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const auto empty = dir.write("empty.so", "");
    auto run = test::run_cudoctor({"arch", "--gpu", "8.9", "/no/such/file.so", fifo, empty.string()}, std::chrono::seconds(10));
    EXPECT_FALSE(run.timed_out);
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.err.find("/no/such/file.so: no such file or folder"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find(fifo + ": not a regular file"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find(empty.string() + ": not an ELF file"), std::string::npos) << run.err;
}

TEST(ArchHostile, UnknownGpuIsAUsageError) {
    auto run = test::run_cudoctor({"arch", "--gpu", "Voodoo 3", "/bin/sh"});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.err.find("not a compute capability"), std::string::npos) << run.err;
}

TEST(ArchHostile, AnEmptyFolderIsSaidNotPassed) {
    test::TempDir dir;
    std::filesystem::create_directories(dir.path() / "empty");
    const auto r = test::run_cudoctor({"arch", (dir.path() / "empty").string(), "--gpu", "8.9"});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("no ELF files (libraries, executables, objects) in this folder"), std::string::npos) << r.err;
}

TEST(ArchHostile, ACapabilityNoGpuHasIsRefused) {
    const auto r = test::run_cudoctor({"arch", "/bin/true", "--gpu", "99.9"});
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.err.find("--gpu 99.9: no GPU has compute capability 99.9"), std::string::npos) << r.err;
    EXPECT_EQ(test::run_cudoctor({"arch", "/bin/true", "--gpu", "sm_89"}).exit_code, 0);
}

TEST(ArchHostile, ARelativeSymlinkLoopIsSaidCleanly) {
    // Named by a relative path, the loop made std::filesystem::exists throw: "internal error", exit 3.
    test::TempDir dir;
    std::filesystem::create_symlink("l1", dir.path() / "l1");
    const auto r = test::run_program("/bin/sh", {"-c", "cd '" + dir.str() + "' && exec \"$0\" arch l1 --gpu 8.9", CUDOCTOR_BINARY},
                                     test::outside_environment(), std::chrono::seconds(30));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("l1: symbolic link loop"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

// --- what arch says besides its verdicts: notes only where they are true, errors first ---------

TEST(ArchHostile, AnErrorAloneGetsNoNote) {
    // With no GPU on the machine the "give --gpu" note used to come before the error; a file that
    // was never read gets no "only the registered fatbins were read" either.
    for (const auto& args :
         {std::vector<std::string>{"arch", "/no/such/file.so"}, std::vector<std::string>{"arch", "--gpu", "8.9", "/no/such/file.so"}}) {
        const auto run = test::run_cudoctor(args);
        EXPECT_EQ(run.exit_code, 2) << run.describe();
        EXPECT_EQ(run.out, "");
        EXPECT_EQ(run.err, "cudoctor arch: /no/such/file.so: no such file or folder\n");
    }
}

TEST(ArchHostile, AnErrorAloneGetsNoNoteInMarkdownEither) {
    const auto run = test::run_cudoctor({"arch", "--markdown", "/no/such/file.so"});
    EXPECT_EQ(run.exit_code, 2) << run.describe();
    EXPECT_EQ(run.out.find("give --gpu"), std::string::npos) << run.out;
}

TEST(ArchHostile, AFileWithoutFatbinsSaysSoOnce) {
    // One line, in words that are right: the whole file was searched, so no note that the lists
    // "may be incomplete", and no note about a --fast that was not given.
    for (const auto& args : {std::vector<std::string>{"arch", "--gpu", "8.9", "/bin/true"}, std::vector<std::string>{"arch", "/bin/true"}}) {
        const auto run = test::run_cudoctor(args);
        EXPECT_EQ(run.exit_code, 0) << run.describe() << run.err;
        EXPECT_EQ(run.out, "/bin/true: no GPU code (no fatbin)\n");
        EXPECT_EQ(run.err, "");
    }
    // --fast searches no data section, and says so on that line alone.
    const auto fast = test::run_cudoctor({"arch", "--fast", "--gpu", "8.9", "/bin/true"});
    EXPECT_EQ(fast.exit_code, 0);
    EXPECT_EQ(fast.out, "/bin/true: no fatbin registered at load (--fast: data sections not searched)\n");
}

TEST(ArchHostile, NoFastNoteWithoutFast) {
    test::TempDir dir;
    const auto file = dir.write("sass.o", corpus("elf", "sass.o"));
    const auto run = test::run_cudoctor({"arch", "--gpu", "7.5", "--gpu", "8.0", "--gpu", "8.9", "--gpu", "9.0", file.string()});
    EXPECT_NE(run.exit_code, 2) << run.describe() << run.err;
    EXPECT_EQ(run.out.find("--fast"), std::string::npos) << run.out;
}

TEST(ArchHostile, AFileWithOnlyEmbeddedFatbinsIsFoundWithoutFull) {
    // sass.o with its .nv_fatbin renamed .ldata: nothing registered at load, the module embedded
    // in a data section (where cuFFT keeps its kernels). "No GPU code" would be a false answer.
    std::string bytes = corpus("elf", "sass.o");
    const std::string registered("\0.nv_fatbin\0", 12), data("\0.ldata\0\0\0\0\0", 12);
    const auto at = bytes.find(registered);
    ASSERT_NE(at, std::string::npos);
    bytes.replace(at, registered.size(), data);
    test::TempDir dir;
    const auto file = dir.write("embedded.o", bytes);
    const auto run = test::run_cudoctor({"arch", "--json", "--gpu", "8.9", file.string()});
    ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.describe() << run.err;
    const auto j = nlohmann::json::parse(run.out);
    EXPECT_TRUE(j["without_gpu_code"].empty()) << run.out;
    ASSERT_EQ(j["files"].size(), 1u) << run.out;
    EXPECT_EQ(j["files"][0]["sections"][0]["name"], ".ldata");
    EXPECT_EQ(j["files"][0]["sections"][0]["embedded"], true);
    // --fast still reads the registered fatbins only, and says what that means for this file.
    const auto fast = test::run_cudoctor({"arch", "--fast", "--gpu", "8.9", file.string()});
    EXPECT_EQ(fast.exit_code, 0) << fast.describe();
    EXPECT_EQ(fast.out, file.string() + ": no fatbin registered at load (--fast: data sections not searched)\n");
}
