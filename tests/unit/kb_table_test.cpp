#include <gtest/gtest.h>

#include "kb/table.hpp"

using cudoctor::Errc;
using cudoctor::kb::RowView;
using cudoctor::kb::Table;

TEST(KbTable, ReadsSourceHeaderRowsAndSkipsComments) {
    const auto t = Table::parse("t.tsv", "# source: somewhere\r\n# a comment\r\na\tb\r\n 1 \t\r\n\r\n# later\r\nx\ty\r\n");
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_EQ(t->source(), "somewhere");
    EXPECT_EQ(t->header(), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(t->header_line(), 3u);
    ASSERT_EQ(t->rows().size(), 2u);
    EXPECT_EQ(t->rows()[0].cells, (std::vector<std::string>{"1", ""}));
    EXPECT_EQ(t->rows()[0].line, 4u);
    EXPECT_EQ(t->rows()[1].line, 7u);
    EXPECT_EQ(t->column("b"), 1u);
    EXPECT_FALSE(t->column("c"));
}

TEST(KbTable, RejectsMalformedTablesNamingFileAndLine) {
    auto t = Table::parse("t.tsv", "a\tb\n1\t2\n");
    ASSERT_FALSE(t);
    EXPECT_EQ(t.error().code, Errc::parse);
    EXPECT_EQ(t.error().message, "t.tsv:1: the first line must be '# source: …' naming where the facts come from");

    t = Table::parse("t.tsv", "# source:   \na\n");
    EXPECT_EQ(t.error().message, "t.tsv:1: the '# source:' line names no source");

    t = Table::parse("t.tsv", "# source: s\na\tb\n1\t2\n1\t2\t3\n");
    ASSERT_FALSE(t);
    EXPECT_EQ(t.error().message, "t.tsv:4: expected 2 tab-separated cells, found 3");

    t = Table::parse("t.tsv", "# source: s\na\ta\n");
    EXPECT_EQ(t.error().message, "t.tsv:2: column 'a' appears twice in the header");

    t = Table::parse("t.tsv", "# source: s\n# only comments\n");
    EXPECT_EQ(t.error().message, "t.tsv:2: no header row");

    t = Table::parse("t.tsv", "# source: s\na\tb\n");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->require_columns({"a", "c"}).error().message, "t.tsv:2: missing column 'c'");
}

TEST(KbTable, TypedCellsNameColumnOnError) {
    const auto t = Table::parse("t.tsv", "# source: s\nv\tn\tb\tcc\n12.4.1\t7\tyes\t9.0a\n12.x\tseven\tmaybe\t9\n");
    ASSERT_TRUE(t);
    const RowView good(*t, t->rows()[0]);
    EXPECT_EQ(good.version("v")->str(), "12.4.1");
    EXPECT_EQ(good.optional_int("n")->value(), 7);
    EXPECT_EQ(good.optional_yes_no("b")->value(), true);
    EXPECT_EQ(*good.compute_capability("cc"), "9.0a");

    const RowView bad(*t, t->rows()[1]);
    EXPECT_EQ(bad.version("v").error().message, "t.tsv:4: column v: '12.x' is not a version");
    EXPECT_EQ(bad.optional_int("n").error().message, "t.tsv:4: column n: 'seven' is not a whole number");
    EXPECT_EQ(bad.optional_yes_no("b").error().message, "t.tsv:4: column b: 'maybe' is not yes or no");
    EXPECT_EQ(bad.compute_capability("cc").error().message, "t.tsv:4: column cc: '9' is not a compute capability");
}

TEST(KbTable, StrictVersionsAndComputeCapabilities) {
    using cudoctor::kb::is_compute_capability;
    using cudoctor::kb::parse_strict_version;
    EXPECT_EQ(parse_strict_version("550.54.14")->str(), "550.54.14");
    EXPECT_EQ(parse_strict_version("580")->str(), "580");
    EXPECT_FALSE(parse_strict_version("r418.39"));
    EXPECT_FALSE(parse_strict_version("12.4 "));
    EXPECT_FALSE(parse_strict_version("12..4"));
    EXPECT_FALSE(parse_strict_version("12."));
    EXPECT_FALSE(parse_strict_version(""));
    EXPECT_TRUE(is_compute_capability("8.9"));
    EXPECT_TRUE(is_compute_capability("12.0"));
    EXPECT_TRUE(is_compute_capability("10.0f"));
    EXPECT_FALSE(is_compute_capability("89"));
    EXPECT_FALSE(is_compute_capability("8.9b"));
    EXPECT_FALSE(is_compute_capability("123.0"));
    EXPECT_FALSE(is_compute_capability("8."));
}
