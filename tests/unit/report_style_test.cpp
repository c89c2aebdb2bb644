// report/style: the one painter, escape for text from outside, Markdown cell, join and byte
// formatter that every renderer uses.
#include <gtest/gtest.h>

#include "report/style.hpp"

namespace cudoctor::report {
namespace {

TEST(ReportStyle, PainterColoursOnlyWhenOn) {
    EXPECT_EQ(Painter(true).paint(Ink::green, "pass"), "\033[32mpass\033[0m");
    EXPECT_EQ(Painter(true).paint(Ink::bold_red, "<- first failure"), "\033[1;31m<- first failure\033[0m");
    EXPECT_EQ(Painter(true).paint(Ink::dim, "·"), "\033[2m·\033[0m");
    EXPECT_EQ(Painter(false).paint(Ink::bold, "Findings"), "Findings");
}

TEST(ReportStyle, TerminalEscapeDisarmsControlCharacters) {
    // A process name that would clear the screen, recolour it or rewrite the line.
    EXPECT_EQ(outside_text("evil\033[2J\033[31mname", Medium::terminal), "evil?[2J?[31mname");
    EXPECT_EQ(outside_text("a\rb\nc\bd\x7f", Medium::terminal), "a?b?c?d?");
    EXPECT_EQ(outside_text("col\tumn", Medium::terminal), "col\tumn");  // a TAB only moves the cursor
    // C1 controls (U+009B is a one-byte CSI on some terminals) and broken UTF-8 become '?'.
    EXPECT_EQ(outside_text("x\xc2\x9b"
                           "31m",
                           Medium::terminal),
              "x?31m");
    EXPECT_EQ(outside_text("bad \xff\xfe end", Medium::terminal), "bad ?? end");
    // Text in other scripts and our own punctuation stays.
    EXPECT_EQ(outside_text("GeForce RTX 4090 · 显卡 ≤ 12.4 – ok", Medium::terminal), "GeForce RTX 4090 · 显卡 ≤ 12.4 – ok");
    EXPECT_EQ(outside_text("", Medium::terminal), "");
}

TEST(ReportStyle, MarkdownEscapeKeepsTheTableWhole) {
    EXPECT_EQ(outside_text("a|b", Medium::markdown), "a\\|b");
    EXPECT_EQ(outside_text("two\r\nlines\n", Medium::markdown), "two<br>lines<br>");
    EXPECT_EQ(outside_text("esc\033[0m", Medium::markdown), "esc?[0m");
    EXPECT_EQ(markdown_cell("x | y"), "x \\| y");
    EXPECT_EQ(markdown_cell("", "–"), "–");
    EXPECT_EQ(markdown_cell(""), "");
}

TEST(ReportStyle, SvgEscapeIsXml) {
    EXPECT_EQ(outside_text("<a & \"b\">", Medium::svg), "&lt;a &amp; &quot;b&quot;&gt;");
    EXPECT_EQ(outside_text("python3\033]0;title\a", Medium::svg), "python3?]0;title?");
    EXPECT_EQ(outside_text("layers.11.mlp", Medium::svg), "layers.11.mlp");
}

TEST(ReportStyle, Join) {
    EXPECT_EQ(join({"a", "b", "c"}, ", "), "a, b, c");
    EXPECT_EQ(join({}, ", "), "");
    EXPECT_EQ(join({"a", "", "c"}, " · "), "a ·  · c");
    EXPECT_EQ(join({"", "a", "", "c", ""}, " · ", true), "a · c");
}

TEST(ReportStyle, BytesInEachCommandsStyle) {
    // watch: three significant digits, signed.
    EXPECT_EQ(bytes_text(1.5 * (1 << 30), ByteStyle::significant), "1.5 GiB");
    EXPECT_EQ(bytes_text(380.0 * (1 << 20), ByteStyle::significant), "380 MiB");
    EXPECT_EQ(bytes_text(-12.0 * 1024, ByteStyle::significant), "-12 KiB");
    EXPECT_EQ(bytes_text(12, ByteStyle::significant), "12 B");
    // list: one decimal.
    EXPECT_EQ(bytes_text(4.1 * (1 << 30), ByteStyle::one_decimal), "4.1 GiB");
    EXPECT_EQ(bytes_text(812.0 * (1 << 20), ByteStyle::one_decimal), "812.0 MiB");
    EXPECT_EQ(bytes_text(12, ByteStyle::one_decimal), "12 B");
    // verify-installer: one decimal below ten, whole above; bytes spelled out.
    EXPECT_EQ(bytes_text(4.0 * (1 << 30), ByteStyle::whole_from_ten), "4.0 GiB");
    EXPECT_EQ(bytes_text(512.0 * (1 << 20), ByteStyle::whole_from_ten), "512 MiB");
    EXPECT_EQ(bytes_text(1, ByteStyle::whole_from_ten), "1 byte");
    EXPECT_EQ(bytes_text(12, ByteStyle::whole_from_ten), "12 bytes");
    // arch: SI units.
    EXPECT_EQ(bytes_text(1.7e9, ByteStyle::decimal), "1.7 GB");
    EXPECT_EQ(bytes_text(12e6, ByteStyle::decimal), "12 MB");
    EXPECT_EQ(bytes_text(3000, ByteStyle::decimal), "3 kB");
    EXPECT_EQ(bytes_text(12, ByteStyle::decimal), "12 bytes");
}

}  // namespace
}  // namespace cudoctor::report
