// `cudoctor --version`: the sources of the real tables shortened to one line, the dates from the
// configure step, and the text the real binary prints.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "commands/build_info.hpp"
#include "integration/run_cudoctor.hpp"
#include "kb/embedded.hpp"
#include "support/temp_dir.hpp"

// A namespace of its own: a global using-directive for cudoctor would hide the `compare(…)` of
// headers later files of the unity build include (cudoctor::compare against fmt's bigint).
namespace docs_version_test {

using namespace cudoctor;
using namespace cudoctor::commands;

namespace {

std::string source_of(std::string_view table) {
    for (const auto& t : kb::embedded_tables())
        if (t.name == table) return std::string(table_source(t.text));
    return "(no table " + std::string(table) + ")";
}

}  // namespace

TEST(DocsVersion, ShortensTheRealSources) {
    EXPECT_EQ(shorten_source(source_of("tensorflow_cuda.tsv")), "tensorflow.org, github.com/tensorflow/docs");
    EXPECT_EQ(shorten_source(source_of("gpus.tsv")),
              "developer.nvidia.com, github.com/NVIDIA/open-gpu-kernel-modules, github.com/pciutils/pciids");
    EXPECT_EQ(shorten_source(source_of("cuda_driver.tsv")),
              "docs.nvidia.com, github.com/Jimver/cuda-toolkit, github.com/rwgk/rwgk_config +1 more");
    // No web address at all: the first clause, cut at a word.
    const auto catalog = shorten_source(source_of("error_catalog.tsv"));
    EXPECT_TRUE(catalog.starts_with("error messages collected from public bug reports")) << catalog;
    EXPECT_TRUE(catalog.ends_with("…")) << catalog;
    EXPECT_LE(catalog.size(), 64u) << catalog;
}

TEST(DocsVersion, ShortenSourceEdgeCases) {
    EXPECT_EQ(shorten_source(""), "");
    EXPECT_EQ(shorten_source("read from cuda.py, pci.ids and RELEASE.md"), "read from cuda.py, pci.ids and RELEASE.md");
    EXPECT_EQ(shorten_source("https://www.example.org/a and http://example.org/b"), "example.org");
    EXPECT_EQ(shorten_source("github.com/only"), "github.com");
    EXPECT_EQ(shorten_source("see HTTPS://EXAMPLE.COM"), "see HTTPS://EXAMPLE.COM");  // upper case is no host name we trust
    EXPECT_EQ(shorten_source(std::string(300, 'x')), std::string(60, 'x') + "…");
}

TEST(DocsVersion, TableSource) {
    EXPECT_EQ(table_source("# source: a; b\n# other\nh1\th2\n"), "a; b");
    EXPECT_EQ(table_source("# note\n#  source:   spaced  \nh\n"), "spaced");
    EXPECT_EQ(table_source("h1\th2\n# source: after the header\n"), "");
    EXPECT_EQ(table_source(""), "");
}

TEST(DocsVersion, TextFromInfo) {
    const TableStamp stamps[] = {{"a.tsv", "2024-05-01", "git"}, {"b.tsv", "2024-06-02", "file"}};
    const BuildInfo info{"9.8.7", "abc1234-dirty", "2024-06-03", stamps};
    const std::vector<kb::EmbeddedTable> tables = {{"a.tsv", "# source: https://docs.nvidia.com/x\nh\n"},
                                                   {"b.tsv", "# source: my notes\nh\n"},
                                                   {"c.tsv", "h\n"}};
    EXPECT_EQ(version_text(info, tables),
              "cudoctor 9.8.7 (git abc1234-dirty)\n"
              "knowledge base: 3 tables compiled in (date = last change)\n"
              "  a.tsv  2024-05-01  docs.nvidia.com\n"
              "  b.tsv  2024-06-02* my notes\n"
              "  c.tsv  unknown     \n"
              "  * file date: the table differs from its last commit, or the build is outside git\n");
}

TEST(DocsVersion, BuildInfoCoversEveryEmbeddedTable) {
    const auto& info = build_info();
    EXPECT_EQ(info.version, CUDOCTOR_VERSION);
    EXPECT_FALSE(info.revision.empty());
    const std::regex date(R"(\d{4}-\d{2}-\d{2})");
    EXPECT_TRUE(std::regex_match(std::string(info.date), date)) << info.date;
    ASSERT_EQ(info.tables.size(), kb::embedded_tables().size());
    for (std::size_t i = 0; i < info.tables.size(); ++i) {
        EXPECT_EQ(info.tables[i].name, kb::embedded_tables()[i].name);
        EXPECT_TRUE(std::regex_match(std::string(info.tables[i].date), date)) << info.tables[i].name << " " << info.tables[i].date;
        EXPECT_TRUE(info.tables[i].date_source == "git" || info.tables[i].date_source == "file");
    }
}

TEST(DocsVersion, RealBinaryPrintsEveryTable) {
    auto run = test::run_cudoctor({"--version"});
    ASSERT_EQ(run.exit_code, 0) << run.describe() << run.err;
    EXPECT_TRUE(run.out.starts_with(std::string("cudoctor ") + CUDOCTOR_VERSION + " (git ")) << run.out;
    for (const auto& t : kb::embedded_tables()) {
        const std::regex line("\n  " + std::string(t.name) + R"( +\d{4}-\d{2}-\d{2}\*? +\S)");
        EXPECT_TRUE(std::regex_search(run.out, line)) << t.name << " missing or undated in:\n" << run.out;
    }
}

// --version sees a top-level --kb on either side of it; --kb alone is a usage error.
TEST(DocsVersion, RealBinaryShowsKbOverrides) {
    test::TempDir kb;
    kb.write("gpus.tsv", "# source: https://example.org/my-gpus\nname\tcc\n");
    for (const auto& args :
         {std::vector<std::string>{"--version", "--kb", kb.str()}, std::vector<std::string>{"--kb=" + kb.str(), "--version"}}) {
        auto run = test::run_cudoctor(args);
        ASSERT_EQ(run.exit_code, 0) << run.describe() << run.err;
        const std::regex line(R"(\n  gpus\.tsv +override +example\.org)");
        EXPECT_TRUE(std::regex_search(run.out, line)) << run.out;
        EXPECT_NE(run.out.find("1 of these tables read from " + kb.str()), std::string::npos) << run.out;
    }
    auto plain = test::run_cudoctor({"--version"});
    EXPECT_EQ(plain.out.find("override"), std::string::npos) << plain.out;
    auto alone = test::run_cudoctor({"--kb", kb.str()});
    EXPECT_EQ(alone.exit_code, 2) << alone.describe() << alone.out;
}

}  // namespace docs_version_test
