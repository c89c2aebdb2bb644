#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "formats/dpkg_status.hpp"
#include "support/files.hpp"

using namespace cudoctor::formats;

namespace {

using cudoctor::test::slurp;

const char* const kStatusSample =
    "Package: libc6\n"
    "Status: install ok installed\n"
    "Priority: optional\n"
    "Architecture: amd64\n"
    "Multi-Arch: same\n"
    "Source: glibc\n"
    "Version: 2.36-9+deb12u14\n"
    "Description: GNU C Library: Shared libraries\n"
    " Contains the standard libraries that are used by nearly all programs on\n"
    " .\n"
    " Package: fake\n"  // a continuation that looks like a field is still a continuation
    "\n"
    "Package: cuda-toolkit-12-4\n"
    "Status: deinstall ok config-files\n"
    "Architecture: amd64\n"
    "Version: 12.4.1-1\n"
    "\n"
    "Package: libcudnn9-cuda-12\n"
    "Status: install ok installed\n"
    "Architecture: amd64\n"
    "Source: cudnn (9.1.0.70-1)\n"
    "Version: 9.1.0.70-1\n";

}  // namespace

TEST(FormatsDpkgStatus, ReadsStanzas) {
    const auto p = parse_dpkg_status(kStatusSample);
    ASSERT_EQ(p.size(), 3u);
    EXPECT_EQ(p[0].name, "libc6");
    EXPECT_EQ(p[0].version, "2.36-9+deb12u14");
    EXPECT_EQ(p[0].architecture, "amd64");
    EXPECT_EQ(p[0].status, "install ok installed");
    EXPECT_EQ(p[0].source, "glibc");
    EXPECT_TRUE(p[0].installed());
    EXPECT_EQ(p[1].name, "cuda-toolkit-12-4");
    EXPECT_FALSE(p[1].installed());
    EXPECT_EQ(p[1].source, "");
    EXPECT_EQ(p[2].source, "cudnn");  // "(9.1.0.70-1)" dropped
    EXPECT_TRUE(p[2].installed());
}

TEST(FormatsDpkgStatus, EdgeCasesTableDriven) {
    struct Case {
        std::string text;
        std::size_t count;
        std::string first_name;
        std::string first_version;
    };
    const std::vector<Case> cases = {
        {"", 0, "", ""},
        {"\n\n\n", 0, "", ""},
        {"Version: 1\n", 0, "", ""},                                      // no Package: dropped
        {"Package: a\r\nVersion: 1\r\n\r\nPackage: b\r\n", 2, "a", "1"},  // CRLF
        {"package: a\nVERSION: 2\n", 1, "a", "2"},                        // field names ignore case
        {"Package: a\n \t \nPackage: b\n", 2, "a", ""},                   // whitespace-only line separates
        {"Package:a\nVersion:3\n", 1, "a", "3"},                          // no space after ':'
        {"Package: a\nVersion 3\nno colon\n", 1, "a", ""},
        {"Package: \xff\xfe\nVersion: \x80\n", 1, "\xff\xfe", "\x80"},
        {"Package: a\nPackage: b\n", 1, "b", ""},  // repeated field: the last wins
        {"Package: a", 1, "a", ""},                // no final newline
        {"Package:\n", 0, "", ""},                 // empty name
        {"# comment\nPackage: a\n", 1, "a", ""},
    };
    for (const auto& c : cases) {
        const auto p = parse_dpkg_status(c.text);
        ASSERT_EQ(p.size(), c.count) << c.text;
        if (c.count == 0) continue;
        EXPECT_EQ(p[0].name, c.first_name) << c.text;
        EXPECT_EQ(p[0].version, c.first_version) << c.text;
    }
}

TEST(FormatsDpkgStatus, InstalledMeansTheLastWord) {
    DpkgPackage p;
    for (const auto& [status, installed] : std::vector<std::pair<std::string, bool>>{{"install ok installed", true},
                                                                                     {"hold ok installed", true},
                                                                                     {"deinstall ok config-files", false},
                                                                                     {"install ok half-installed", false},
                                                                                     {"install ok unpacked", false},
                                                                                     {"installed", false},
                                                                                     {"", false}}) {
        p.status = status;
        EXPECT_EQ(p.installed(), installed) << status;
    }
}

TEST(FormatsDpkgStatus, TenMegabytesQuickly) {
    std::string text;
    const std::string stanza =
        "Package: libfoo%\nStatus: install ok installed\nPriority: optional\nSection: libs\nInstalled-Size: 123\n"
        "Maintainer: Someone <someone@example.org>\nArchitecture: amd64\nMulti-Arch: same\nSource: foo\n"
        "Version: 1.2.3-4\nDepends: libc6 (>= 2.34), libgcc-s1 (>= 3.0)\nDescription: a library\n"
        " A long description line that goes on and on and on and on and on and on and on.\n"
        " A long description line that goes on and on and on and on and on and on and on.\n .\n"
        " A long description line that goes on and on and on and on and on and on and on.\n\n";
    while (text.size() < 10 * 1024 * 1024) text += stanza;
    const auto start = std::chrono::steady_clock::now();
    const auto p = parse_dpkg_status(text);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    EXPECT_EQ(p.size(), text.size() / stanza.size());
    // A few ms in an optimised build; the bound leaves room for sanitizers and slow CI machines.
    EXPECT_LT(ms.count(), 2000);
}

TEST(FormatsDpkgStatus, ThisMachine) {
    const std::filesystem::path path = "/var/lib/dpkg/status";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "not a dpkg system";
    const auto packages = parse_dpkg_status(slurp(path));
    ASSERT_FALSE(packages.empty());
    bool libc6 = false;
    for (const auto& p : packages)
        if (p.name == "libc6" && p.installed()) {
            libc6 = true;
            EXPECT_FALSE(p.version.empty());
            EXPECT_EQ(p.source, "glibc");
        }
    EXPECT_TRUE(libc6);
}
