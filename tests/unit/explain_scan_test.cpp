// formats::LogScanner: one pass, any chunking, line numbers, captures, wrapped messages, long
// lines and junk.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include <stdlib.h>  // setenv
#include <vector>

#include "formats/log_scan.hpp"

using cudoctor::formats::LogPattern;
using cudoctor::formats::LogScanner;
using cudoctor::formats::printable_line;

namespace {

std::vector<LogPattern> patterns() {
    return {
        {"cudnn", "cannot open shared object", R"((libcudnn\w*\.so(?:\.\d+)*):\s*cannot open shared object)"},
        {"too-old", "driver on your system is too old", R"(The NVIDIA driver on your system is too old \(found version (\d+)\))"},
        {"wrap", "mismatches the version that was used to compile",
         R"(detected CUDA version \((\d+\.\d+)\) mismatches the version that was used to compile\s+PyTorch \((\d+\.\d+)\))"},
    };
}

LogScanner scan(std::string_view text, std::size_t piece = 0, std::size_t max_line = 8192) {
    cudoctor::formats::ScanLimits limits;
    limits.max_line = max_line;
    auto s = LogScanner::create(patterns(), limits);
    EXPECT_TRUE(s) << s.error().message;
    if (piece == 0) {
        s->feed(text);
    } else {
        for (std::size_t i = 0; i < text.size(); i += piece) s->feed(text.substr(i, piece));
    }
    s->finish();
    return std::move(*s);
}

}  // namespace

TEST(ExplainScan, FindsLineNumbersAndCaptures) {
    const std::string log =
        "step 1 ok\n"
        "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory\n"
        "\n"
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update\n";
    auto s = scan(log);
    ASSERT_EQ(s.hits().size(), 2u);
    EXPECT_EQ(s.hits()[0].pattern, 0u);
    EXPECT_EQ(s.hits()[0].line, 2u);
    EXPECT_EQ(s.hits()[0].groups, std::vector<std::string>{"libcudnn.so.9"});
    EXPECT_EQ(s.hits()[0].text, "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory");
    EXPECT_EQ(s.hits()[1].line, 4u);
    EXPECT_EQ(s.hits()[1].groups, std::vector<std::string>{"11040"});
    EXPECT_EQ(s.lines(), 4u);
    EXPECT_EQ(s.bytes(), log.size());
}

TEST(ExplainScan, WrappedMessageSeenWholeWhateverTheCut) {
    const std::string log =
        "RuntimeError:\n"
        "The detected CUDA version (11.8) mismatches the version that was used to compile\n"
        "PyTorch (11.7). Please make sure to use the same CUDA versions.\n";
    for (std::size_t piece : {0u, 1u, 3u, 7u, 80u, 81u, 82u}) {
        SCOPED_TRACE(piece);
        auto s = scan(log, piece);
        ASSERT_EQ(s.hits().size(), 1u);
        EXPECT_EQ(s.hits()[0].line, 2u);
        EXPECT_EQ(s.hits()[0].groups, (std::vector<std::string>{"11.8", "11.7"}));
        EXPECT_NE(s.hits()[0].text.find("PyTorch (11.7)"), std::string::npos);  // both lines quoted
    }
}

TEST(ExplainScan, CarriageReturnsAndCrlfBreakLines) {
    // tqdm progress bars rewrite one line with "\r"; Windows logs end lines with "\r\n".
    const std::string log = "model.bin: 10%\rmodel.bin: 100%\rlibcudnn_ops_infer.so.8: cannot open shared object file\r\nnext\r\n";
    auto s = scan(log);
    ASSERT_EQ(s.hits().size(), 1u);
    EXPECT_EQ(s.hits()[0].line, 1u);  // line numbers count "\n" only
    EXPECT_EQ(s.hits()[0].text, "libcudnn_ops_infer.so.8: cannot open shared object file");
    EXPECT_EQ(s.lines(), 2u);
}

TEST(ExplainScan, WrappedCrlfMessageSeenWholeWhateverTheCut) {
    // Found by fuzzing: when a piece ended inside "\r\n", the empty gap between '\r' and '\n' was
    // taken for the look-ahead line, so the wrapped line after it was matched only up to the cut.
    const std::string log =
        "RuntimeError:\r\n"
        "The detected CUDA version (11.8) mismatches the version that was used to compile\r\n"
        "PyTorch (11.7). Please make sure to use the same CUDA versions.\r\n"
        "done\r\n";
    const std::string second_line_end = "compile\r";  // cut right after its '\r', and one byte later
    const std::size_t cr = log.find(second_line_end) + second_line_end.size();
    for (std::size_t cut : {cr, cr + 1, cr + 10}) {
        SCOPED_TRACE(cut);
        auto s = LogScanner::create(patterns(), {});
        ASSERT_TRUE(s);
        s->feed(std::string_view(log).substr(0, cut));
        s->feed(std::string_view(log).substr(cut));
        s->finish();
        ASSERT_EQ(s->hits().size(), 1u);
        EXPECT_EQ(s->hits()[0].line, 2u);
        EXPECT_EQ(s->hits()[0].groups, (std::vector<std::string>{"11.8", "11.7"}));
        EXPECT_EQ(s->lines(), 4u);
    }
    for (std::size_t piece : {1u, 2u, 15u, 16u, 17u}) {
        SCOPED_TRACE(piece);
        auto s = scan(log, piece);
        ASSERT_EQ(s.hits().size(), 1u);
        EXPECT_EQ(s.hits()[0].text, scan(log).hits()[0].text);
    }
}

TEST(ExplainScan, SameLineIsCountedOnceAndHitsAreCapped) {
    std::string log;
    for (int i = 0; i < 50; ++i) log += "libcudnn.so.8: cannot open shared object file\n";
    auto s = scan(log, 13);
    EXPECT_EQ(s.match_count(0), 50u);
    EXPECT_EQ(s.hits().size(), 8u);  // ScanLimits::hits_per_pattern
    EXPECT_EQ(s.hits().back().line, 8u);
}

TEST(ExplainScan, MegabyteLinesAndJunkDoNotStall) {
    std::string log(3u << 20, 'x');
    log.replace(2u << 20, 60, "libcudnn.so.9: cannot open shared object file: no such file");
    for (std::size_t i = 0; i < log.size(); i += 4099) log[i] = static_cast<char>(0x80 | (i & 0x7f));  // invalid UTF-8
    log += "\n";
    log += std::string("\0\xff\xfe binary \x1b[31m", 16);
    const auto start = std::chrono::steady_clock::now();
    auto s = scan(log, 65536);
    const auto took = std::chrono::steady_clock::now() - start;
    ASSERT_EQ(s.hits().size(), 1u);
    EXPECT_EQ(s.hits()[0].groups[0], "libcudnn.so.9");
    EXPECT_LE(s.hits()[0].text.size(), 400u + 3u);
    EXPECT_EQ(s.lines(), 2u);
    // Not a timing assertion on speed, a guard against a hang: seconds, not minutes.
    EXPECT_LT(std::chrono::duration_cast<std::chrono::seconds>(took).count(), 20);
}

TEST(ExplainScan, BadPatternsAreRefusedWithTheirId) {
    auto bad = LogScanner::create({{"broken", "x", "(unclosed"}});
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("pattern broken"), std::string::npos);
    EXPECT_FALSE(LogScanner::create({{"no-literal", "", "a"}}));
    EXPECT_FALSE(LogScanner::create({{"utf8", "é", "é"}}));
    EXPECT_FALSE(LogScanner::create({}));
}

TEST(ExplainScan, PatternsTooLargeToCompileTogetherAreReportedNotSkipped) {
    // 3,000 patterns each parse, but their RE2::Set exceeds RE2's memory: refused at create when
    // RE2 is asked for. By size, create only parses them: a short log compiles the one that can
    // match it and finds it; a log past 64 KiB needs them all, and says it could not compile them.
    std::vector<LogPattern> big;
    for (int i = 0; i < 3000; ++i)
        big.push_back({"p" + std::to_string(i), "k" + std::to_string(i) + "x", "k" + std::to_string(i) + "x[a-z]{1000}"});
    const std::string word = "k7x" + std::string(1000, 'q') + "\n";
    ::setenv("CUDOCTOR_LOG_ENGINE", "re2", 1);
    auto asked = LogScanner::create(big);
    ASSERT_FALSE(asked);
    EXPECT_NE(asked.error().message.find("too large"), std::string::npos) << asked.error().message;
    ::unsetenv("CUDOCTOR_LOG_ENGINE");
    auto s = LogScanner::create(big);
    ASSERT_TRUE(s) << s.error().message;
    s->feed(word);
    s->finish();
    EXPECT_EQ(s->error(), "");
    ASSERT_EQ(s->hits().size(), 1u);
    EXPECT_EQ(s->patterns()[s->hits()[0].pattern].id, "p7");
    s->reset();
    s->feed(std::string(70'000, '.') + "\n" + word);
    s->finish();
    EXPECT_NE(s->error().find("too large"), std::string::npos) << s->error();
    EXPECT_TRUE(s->hits().empty());
    s->reset();  // the next short log is read again
    s->feed(word);
    s->finish();
    EXPECT_EQ(s->error(), "");
    EXPECT_EQ(s->hits().size(), 1u);
}

TEST(ExplainScan, PrintableLine) {
    EXPECT_EQ(printable_line("a\x1b[31mred\x1b[0m b"), "ared b");
    EXPECT_EQ(printable_line(std::string("a\0b\xff", 4)), "a?b?");
    EXPECT_EQ(printable_line("‘quoted’ ok"), "‘quoted’ ok");  // valid UTF-8 kept
    EXPECT_EQ(printable_line("abcdef", 3), "abc…");
    EXPECT_EQ(printable_line("line  \n"), "line");
}
