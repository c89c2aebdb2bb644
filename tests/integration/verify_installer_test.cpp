// The real `cudoctor verify-installer` binary: exit codes (0 good, 1 bad, 2 usage), --json, the
// text verdict, and no progress bar when stderr is not a terminal.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "unit/installer_archives.hpp"

namespace cudoctor::test {

TEST(VerifyInstallerCli, GoodArchiveJson) {
    TempDir t;
    const auto f = make_makeself(t, "cuda_12.9.1_575.57.08_linux.run", {"--xz", "--sha256"}, "CUDA Installer", "pkg");
    const auto sha = tool({"/usr/bin/sha256sum", f.string()}).substr(0, 64);
    auto run = run_cudoctor({"verify-installer", f.string(), "--json", "--sha256", sha});
    ASSERT_EQ(run.exit_code, 0) << run.describe() << run.out << run.err;
    EXPECT_EQ(run.err, "");  // no progress bar off a terminal
    const auto j = nlohmann::json::parse(run.out);
    EXPECT_EQ(j["verdict"], "good");
    EXPECT_EQ(j["kind"], "makeself");
    EXPECT_EQ(j["makeself"]["label"], "CUDA Installer");
    EXPECT_EQ(j["makeself"]["version"], "2.4.5");
    EXPECT_EQ(j["makeself"]["compression"], "xz");
    EXPECT_EQ(j["names"]["cuda"], "12.9.1");
    EXPECT_EQ(j["names"]["driver"], "575.57.08");
    EXPECT_EQ(j["bytes_read"], std::filesystem::file_size(f));
    bool user_sha_ok = false;
    for (const auto& c : j["checks"])
        if (c["name"] == "user-sha256" && c["status"] == "ok") user_sha_ok = true;
    EXPECT_TRUE(user_sha_ok) << j.dump(2);
}

TEST(VerifyInstallerCli, AHundredKilobyteLabelIsCutToALineWithItsLength) {
    // std::regex overflowed the stack on such a label (SIGSEGV); the text view then printed all of it.
    TempDir t;
    const std::string label(100000, 'x');
    const auto f = make_makeself(t, "a_long_label_linux.run", {}, label);
    auto run = run_cudoctor({"verify-installer", f.string()});
    ASSERT_EQ(run.exit_code, 0) << run.describe() << run.err;
    EXPECT_NE(run.out.find("\" (a 100000-byte label), makeself"), std::string::npos) << run.out.substr(0, 400);
    std::size_t longest = 0, start = 0;
    for (std::size_t end; (end = run.out.find('\n', start)) != std::string::npos; start = end + 1) longest = std::max(longest, end - start);
    EXPECT_LT(longest, 300u);
    auto json = run_cudoctor({"verify-installer", f.string(), "--json"});
    EXPECT_EQ(nlohmann::json::parse(json.out)["makeself"]["label"], label);  // the data keeps it whole
}

TEST(VerifyInstallerCli, TruncatedArchiveText) {
    TempDir t;
    const auto f = make_makeself(t, "cuda_12.4.0_550.54.14_linux.run");
    cut_tail(f, 10);
    auto run = run_cudoctor({"verify-installer", f.string()});
    EXPECT_EQ(run.exit_code, 1) << run.describe() << run.out << run.err;
    EXPECT_NE(run.out.find("verdict: cut short"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("fix: resume it (the bytes so far are good): wget -c -O " + f.string() +
                           " https://developer.download.nvidia.com/compute/cuda/12.4.0/local_installers/cuda_12.4.0_550.54.14_linux.run"),
              std::string::npos)
        << run.out;
}

TEST(VerifyInstallerCli, UsageErrors) {
    TempDir t;
    auto run = run_cudoctor({"verify-installer", (t.path() / "missing.run").string()});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.err.find("cannot open"), std::string::npos) << run.err;
    const auto f = t.write("x.run", "data");
    run = run_cudoctor({"verify-installer", f.string(), "--sha256", "xyz", "--json"});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_EQ(nlohmann::json::parse(run.out)["error"]["code"], "usage error");
    run = run_cudoctor({"verify-installer"});
    EXPECT_EQ(run.exit_code, 2);
    run = run_cudoctor({"verify-installer", f.string(), "--sha256", std::string(64, 'a'), "--md5", std::string(32, 'a')});
    EXPECT_EQ(run.exit_code, 2);  // one expected digest at a time
}

TEST(VerifyInstallerCli, ErrorPageIsBadNotUsage) {
    TempDir t;
    const auto f = t.write("cuda.run", "<html><title>Access Denied</title></html>");
    auto run = run_cudoctor({"verify-installer", f.string()});
    EXPECT_EQ(run.exit_code, 1) << run.out;
    EXPECT_NE(run.out.find("an HTML page: \"Access Denied\""), std::string::npos) << run.out;
}

// --- NVIDIA's published checksums (data/installer_checksums.tsv) ------------------------------------

TEST(VerifyInstallerCli, AFileNamedAsNvidiasButNotItIsNotTheFileYouExpected) {
    // A whole, self-consistent makeself archive under the name of NVIDIA's 12.4.1 runfile: its
    // SHA-256 is not the one published for that name.
    TempDir t;
    const auto f = make_makeself(t, "cuda_12.4.1_550.54.15_linux.run", {"--sha256"}, "CUDA Installer", "pkg");
    auto run = run_cudoctor({"verify-installer", f.string()});
    EXPECT_EQ(run.exit_code, 1) << run.describe() << run.out << run.err;
    EXPECT_NE(run.out.find("not the one published for a file of this name"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("367d2299b3a4588ab487a6d27276ca5d9ead6e394904f18bccb9e12433b9c4fb"), std::string::npos) << run.out;
    const auto j = nlohmann::json::parse(run_cudoctor({"verify-installer", f.string(), "--json"}).out);
    EXPECT_EQ(j["verdict"], "digest-mismatch") << j.dump(2);
    // A checksum the user gives is the one checked: the published one is not hashed again.
    const auto sha = tool({"/usr/bin/sha256sum", f.string()}).substr(0, 64);
    auto given = run_cudoctor({"verify-installer", f.string(), "--sha256", sha});
    EXPECT_EQ(given.exit_code, 0) << given.out;
    EXPECT_EQ(given.out.find("published"), std::string::npos) << given.out;
}

TEST(VerifyInstallerCli, AFileThatMatchesThePublishedChecksumIsGenuine) {
    // The match path, with a --kb table that publishes this very file's SHA-256 under its name.
    TempDir t;
    const auto f = make_makeself(t, "cuda_12.9.1_575.57.08_linux.run", {"--sha256"}, "CUDA Installer", "pkg");
    const auto sha = tool({"/usr/bin/sha256sum", f.string()}).substr(0, 64);
    t.write("kb/installer_checksums.tsv",
            "# source: this test\nfile\tkind\trelease\tsha256\tmd5\tsource\n"
            "cuda_12.9.1_575.57.08_linux.run\tcuda-runfile\t12.9.1\t" +
                sha + "\t\ta test's table\n");
    auto run = run_cudoctor({"verify-installer", f.string(), "--kb", (t.path() / "kb").string()});
    EXPECT_EQ(run.exit_code, 0) << run.describe() << run.out << run.err;
    EXPECT_NE(run.out.find("genuine: it matches the published SHA-256 of cuda_12.9.1_575.57.08_linux.run"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("(a test's table)"), std::string::npos) << run.out;
}

}  // namespace cudoctor::test
