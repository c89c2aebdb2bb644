// kb::load_table: the one loader of data/*.tsv, for the KB's tables, explain's error catalog and
// watch's Xid catalog alike: the embedded copy, a --kb DIR override, an unreadable override.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "commands/build_info.hpp"
#include "explain/explain.hpp"
#include "kb/embedded.hpp"
#include "kb/kb.hpp"
#include "kb/load_table.hpp"
#include "support/temp_dir.hpp"
#include "watch/xid_catalog.hpp"

namespace cudoctor::kb {
namespace {

namespace fs = std::filesystem;

const char* kXidTable =
    "# source: a test Xid table\n"
    "code\tmnemonic\tmeaning\tcause\taction\tadvice\n"
    "79\tOFF_THE_BUS\tTest meaning\tbus\tRESTART_BM\treseat it\n";

TEST(KbLoadTable, EmbeddedCopyWithoutAFolder) {
    for (const auto name : {"gpus.tsv", "error_catalog.tsv", "xid_codes.tsv"}) {
        const auto text = load_table_text(name, std::nullopt);
        ASSERT_TRUE(text) << name << ": " << text.error().message;
        EXPECT_EQ(text->shown_name, name);
        EXPECT_FALSE(text->overridden);
        const auto table = load_table(name, std::nullopt);
        ASSERT_TRUE(table) << table.error().message;
        EXPECT_FALSE(table->rows().empty()) << name;
    }
    const auto unknown = load_table("no_such_table.tsv", std::nullopt);
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().code, Errc::not_found);
    EXPECT_EQ(unknown.error().message, "table no_such_table.tsv is not embedded");
}

TEST(KbLoadTable, OverrideReplacesTheTableAndNamesItsPath) {
    test::TempDir dir;
    const auto path = dir.write("xid_codes.tsv", kXidTable).string();
    const auto text = load_table_text("xid_codes.tsv", dir.str());
    ASSERT_TRUE(text) << text.error().message;
    EXPECT_TRUE(text->overridden);
    EXPECT_EQ(text->shown_name, path);
    const auto table = load_table("xid_codes.tsv", dir.str());
    ASSERT_TRUE(table) << table.error().message;
    EXPECT_EQ(table->name(), path);
    EXPECT_EQ(table->source(), "a test Xid table");
    // A table the folder does not have stays embedded.
    const auto gpus = load_table_text("gpus.tsv", dir.str());
    ASSERT_TRUE(gpus);
    EXPECT_FALSE(gpus->overridden);

    // Watch's Xid catalog reads through the same loader.
    const auto xids = watch::XidCatalog::load(dir.str());
    ASSERT_TRUE(xids) << xids.error().message;
    EXPECT_EQ(xids->size(), 1u);
    EXPECT_EQ(xids->find(79)->meaning, "Test meaning");
}

TEST(KbLoadTable, MissingFolderIsNotFound) {
    const auto table = load_table("gpus.tsv", std::string("/nonexistent/kb"));
    ASSERT_FALSE(table);
    EXPECT_EQ(table.error().code, Errc::not_found);
    EXPECT_EQ(table.error().message, "knowledge-base directory /nonexistent/kb does not exist");
}

TEST(KbLoadTable, UnreadableOverrideIsAnErrorNotTheEmbeddedCopy) {
    test::TempDir dir;
    // A folder where the table should be: never silently the embedded table.
    fs::create_directory(dir.path() / "error_catalog.tsv");
    const auto catalog = explain::load_catalog(dir.str());
    ASSERT_FALSE(catalog);
    EXPECT_EQ(catalog.error().code, Errc::io);
    EXPECT_EQ(catalog.error().message, "cannot read " + (dir.path() / "error_catalog.tsv").string() + ": not a regular file");

    // Too large.
    dir.write("gpus.tsv", std::string(kMaxTableBytes + 1, '#'));
    const auto kb = Kb::load(dir.str());
    ASSERT_FALSE(kb);
    EXPECT_EQ(kb.error().code, Errc::too_large);
    EXPECT_EQ(kb.error().message, "cannot read " + (dir.path() / "gpus.tsv").string() + ": larger than 8 MiB");

    // No permission to read (the Xid catalog skipped this check before).
    if (::geteuid() != 0) {
        const auto xid = dir.write("xid_codes.tsv", kXidTable);
        fs::permissions(xid, fs::perms::none);
        const auto xids = watch::XidCatalog::load(dir.str());
        ASSERT_FALSE(xids);
        EXPECT_EQ(xids.error().code, Errc::permission);
        EXPECT_EQ(xids.error().message, "cannot read " + xid.string() + ": Permission denied");
    }
}

TEST(KbLoadTable, VersionTextReportsEveryOverride) {
    test::TempDir dir;
    dir.write("xid_codes.tsv", kXidTable);
    dir.write("error_catalog.tsv", "# source: https://example.org/errors\npattern\n");
    const commands::BuildInfo info{"1.2.3", "abc", "2026-12-01", {}};
    const auto text = commands::version_text(info, embedded_tables(), dir.str());
    std::size_t width = 0;  // names are padded to the longest one
    for (const auto& t : embedded_tables()) width = std::max(width, t.name.size());
    const std::string xid_line = "  xid_codes.tsv" + std::string(width - 13, ' ') + "  override    a test Xid table (" +
                                 (dir.path() / "xid_codes.tsv").string() + ", from --kb)\n";
    EXPECT_NE(text.find(xid_line), std::string::npos) << text;
    EXPECT_NE(text.find("override    example.org (" + (dir.path() / "error_catalog.tsv").string() + ", from --kb)"), std::string::npos)
        << text;
    EXPECT_NE(text.find("  override: 2 of these tables read from " + dir.str() +
                        " (--kb), not the compiled-in copy (looked up in this order)\n"),
              std::string::npos)
        << text;
    // Without a folder, nothing is said of overrides.
    EXPECT_EQ(commands::version_text(info, embedded_tables()).find("override"), std::string::npos);
}

// --kb, then $CUDOCTOR_KB, then /etc/cudoctor/kb, then the compiled-in copy: table by table,
// the first folder holding a table gives it. The search is set here as main() sets it from the
// environment, with temporary folders in place of the variable's and /etc's.
class KbSearchOrder : public ::testing::Test {
  protected:
    void TearDown() override { set_kb_search({}); }
    test::TempDir cli, env, system;
};

TEST_F(KbSearchOrder, EachTableComesFromTheFirstFolderThatHasIt) {
    cli.write("xid_codes.tsv", kXidTable);
    env.write("xid_codes.tsv", "# source: env\nnot read\n");
    env.write("error_catalog.tsv", "# source: https://example.org/env-errors\npattern\n");
    system.write("error_catalog.tsv", "# source: not read\n");
    system.write("gpus.tsv", "# source: not read either: gpus.tsv is below\n");
    set_kb_search({env.str(), system.str()});

    const auto xid = load_table_text("xid_codes.tsv", cli.str());
    ASSERT_TRUE(xid) << xid.error().message;
    EXPECT_EQ(xid->origin, "--kb");
    EXPECT_EQ(xid->text, kXidTable);
    const auto catalog = load_table_text("error_catalog.tsv", cli.str());
    ASSERT_TRUE(catalog) << catalog.error().message;
    EXPECT_EQ(catalog->origin, "$CUDOCTOR_KB");
    EXPECT_EQ(catalog->shown_name, (env.path() / "error_catalog.tsv").string());
    const auto gpus = load_table_text("gpus.tsv", cli.str());
    ASSERT_TRUE(gpus);
    EXPECT_EQ(gpus->origin, "/etc/cudoctor/kb");
    const auto drivers = load_table_text("cuda_driver.tsv", cli.str());
    ASSERT_TRUE(drivers);
    EXPECT_EQ(drivers->origin, "built-in");
    EXPECT_FALSE(drivers->overridden);
    // Without --kb, the variable's folder comes first.
    const auto xid_env = load_table_text("xid_codes.tsv", std::nullopt);
    ASSERT_TRUE(xid_env);
    EXPECT_EQ(xid_env->origin, "$CUDOCTOR_KB");
}

TEST_F(KbSearchOrder, AMissingSystemFolderIsSkippedAMissingNamedOneIsAnError) {
    set_kb_search({std::nullopt, (system.path() / "absent").string()});
    const auto builtin = load_table_text("gpus.tsv", std::nullopt);
    ASSERT_TRUE(builtin) << builtin.error().message;
    EXPECT_EQ(builtin->origin, "built-in");

    const auto absent = (env.path() / "absent").string();
    set_kb_search({absent, system.str()});
    const auto text = load_table_text("gpus.tsv", std::nullopt);
    ASSERT_FALSE(text);
    EXPECT_EQ(text.error().code, Errc::not_found);
    EXPECT_EQ(text.error().message, "knowledge-base directory " + absent + " (from $CUDOCTOR_KB) does not exist");
    // An empty variable counts as unset.
    set_kb_search({"", system.str()});
    EXPECT_TRUE(load_table_text("gpus.tsv", std::nullopt));
}

TEST_F(KbSearchOrder, VersionNamesWhereEachTableCameFrom) {
    env.write("xid_codes.tsv", kXidTable);
    system.write("error_catalog.tsv", "# source: https://example.org/errors\npattern\n");
    set_kb_search({env.str(), system.str()});
    const commands::BuildInfo info{"1.2.3", "abc", "2026-12-01", {}};
    const auto text = commands::version_text(info, embedded_tables(), std::nullopt);
    EXPECT_NE(text.find((env.path() / "xid_codes.tsv").string() + ", from $CUDOCTOR_KB)"), std::string::npos) << text;
    EXPECT_NE(text.find((system.path() / "error_catalog.tsv").string() + ", from /etc/cudoctor/kb)"), std::string::npos) << text;
    EXPECT_NE(text.find("read from " + env.str() + " ($CUDOCTOR_KB), then " + system.str() + " (/etc/cudoctor/kb)"), std::string::npos)
        << text;
}

}  // namespace
}  // namespace cudoctor::kb
