// formats::LogScanner (Vectorscan finds the candidate lines and patterns) against the engine it
// replaced, formats::detail::Re2LogScanner (an RE2 alternation of the literals, then RE2::Set):
// the same hits (pattern, line, text, captures), counts and line totals, line for line, on the
// whole error corpus and on inputs made to break it: every cut of a log into two feeds, CRLF and
// lone CR, NULs and junk, a megabyte line, messages at the edges of windows, random logs, and
// patterns the pre-filter cannot take. Plus the two readings of regex text it relies on.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <re2/re2.h>
#include <stdlib.h>  // setenv

#include "explain/explain.hpp"
#include "formats/log_scan.hpp"
#include "formats/log_scan_detail.hpp"
#include "formats/log_scan_re2.hpp"
#include "formats/regex_superset.hpp"

// Everything in a namespace of its own: the unity build puts several test files in one unit.
namespace explain_vectorscan_test {

namespace fs = std::filesystem;
using cudoctor::formats::capturing_groups;
using cudoctor::formats::LogPattern;
using cudoctor::formats::LogScanner;
using cudoctor::formats::ScanLimits;
using cudoctor::formats::detail::has_assertions;
using cudoctor::formats::detail::literal_required;
using cudoctor::formats::detail::Re2LogScanner;
using cudoctor::formats::detail::superset_expression;

namespace {

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<LogPattern> catalog_patterns() {
    auto rows = cudoctor::explain::load_catalog(std::nullopt);
    EXPECT_TRUE(rows) << rows.error().message;
    std::vector<LogPattern> patterns;
    for (const auto& r : *rows) patterns.push_back({r.pattern, r.literal, r.regex});
    return patterns;
}

/// Every log the explain tests read: the error corpus and the OpenCV build logs.
std::vector<fs::path> corpus() {
    std::vector<fs::path> files;
    for (const char* dir : {"tests/fixtures/errors", "tests/fixtures/opencv"})
        for (const auto& e : fs::recursive_directory_iterator(fs::path(CUDOCTOR_SOURCE_DIR) / dir))
            if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

/// Feeds text cut before each position in `cuts` (ascending), then finishes.
template <class Scanner>
void feed(Scanner& s, std::string_view text, const std::vector<std::size_t>& cuts = {}) {
    s.reset();
    std::size_t at = 0;
    for (const auto c : cuts) {
        s.feed(text.substr(at, c - at));
        at = c;
    }
    s.feed(text.substr(at));
    s.finish();
}

std::vector<std::size_t> pieces(std::size_t size, std::size_t piece) {
    std::vector<std::size_t> cuts;
    for (std::size_t c = piece; c < size; c += piece) cuts.push_back(c);
    return cuts;
}

::testing::AssertionResult same(const LogScanner& a, const Re2LogScanner& b) {
    if (a.lines() != b.lines()) return ::testing::AssertionFailure() << "lines " << a.lines() << " vs " << b.lines();
    if (a.bytes() != b.bytes()) return ::testing::AssertionFailure() << "bytes " << a.bytes() << " vs " << b.bytes();
    for (std::size_t i = 0; i < a.patterns().size(); ++i)
        if (a.match_count(i) != b.match_count(i))
            return ::testing::AssertionFailure() << a.patterns()[i].id << ": " << a.match_count(i) << " matches vs " << b.match_count(i);
    if (a.hits().size() != b.hits().size()) return ::testing::AssertionFailure() << a.hits().size() << " hits vs " << b.hits().size();
    for (std::size_t i = 0; i < a.hits().size(); ++i) {
        const auto &x = a.hits()[i], &y = b.hits()[i];
        if (x.pattern != y.pattern || x.line != y.line || x.text != y.text || x.groups != y.groups)
            return ::testing::AssertionFailure() << "hit " << i << ": " << a.patterns()[x.pattern].id << " line " << x.line << " '" << x.text
                                                 << "' vs " << b.patterns()[y.pattern].id << " line " << y.line << " '" << y.text << "'";
    }
    return ::testing::AssertionSuccess();
}

/// LogScanner runs on Vectorscan from the first byte when CUDOCTOR_LOG_ENGINE=vectorscan; by
/// default only once a log passes 8 MiB (see log_scan.cpp).
void use_vectorscan() { ::setenv("CUDOCTOR_LOG_ENGINE", "vectorscan", 1); }

/// Both engines over the same patterns and limits.
struct Engines {
    LogScanner fast;
    Re2LogScanner reference;

    static Engines make(const std::vector<LogPattern>& patterns, ScanLimits limits = {}) {
        use_vectorscan();
        auto f = LogScanner::create(patterns, limits);
        auto r = Re2LogScanner::create(patterns, limits);
        EXPECT_TRUE(f) << f.error().message;
        EXPECT_TRUE(r) << r.error().message;
        EXPECT_EQ(f->engine(), "vectorscan");
        return {std::move(*f), std::move(*r)};
    }

    ::testing::AssertionResult agree(std::string_view text, const std::vector<std::size_t>& cuts = {}) {
        feed(fast, text, cuts);
        feed(reference, text, cuts);
        return same(fast, reference);
    }
};

const std::vector<LogPattern>& catalog() {
    static const auto patterns = catalog_patterns();
    return patterns;
}

/// The corpus lines the catalog matches: messages to plant in made-up logs.
const std::vector<std::string>& messages() {
    static const auto lines = [] {
        std::vector<std::string> out;
        auto engines = Engines::make(catalog());
        for (const auto& f : corpus()) {
            const auto text = read(f);
            feed(engines.reference, text);
            for (const auto& h : engines.reference.hits()) {
                std::istringstream in(text);
                std::string line;
                for (std::size_t n = 0; n < h.line && std::getline(in, line);) ++n;
                out.push_back(line);
                if (std::getline(in, line)) out.back() += "\n" + line;  // the next line too: wrapped messages
            }
        }
        return out;
    }();
    return lines;
}

}  // namespace

TEST(ExplainVectorscan, CorpusAgreesLineForLine) {
    auto engines = Engines::make(catalog());
    ScanLimits narrow;
    narrow.max_line = 256;  // the corpus's long lines then go through the overlong-line windows
    auto narrow_engines = Engines::make(catalog(), narrow);
    std::size_t files = 0, hits = 0;
    for (const auto& f : corpus()) {
        const auto text = read(f);
        ++files;
        EXPECT_TRUE(engines.agree(text)) << f;
        hits += engines.fast.hits().size();
        EXPECT_TRUE(engines.agree(text, pieces(text.size(), 4093))) << f << " in 4093-byte pieces";
        EXPECT_TRUE(engines.agree(text, pieces(text.size(), 7))) << f << " in 7-byte pieces";
        EXPECT_TRUE(narrow_engines.agree(text)) << f << " with max_line 256";
    }
    EXPECT_GE(files, 430u);
    EXPECT_GE(hits, 430u);  // the corpus is matched, not silently skipped
}

TEST(ExplainVectorscan, EveryCutOfALogIntoTwoFeeds) {
    auto engines = Engines::make(catalog());
    std::string log;
    for (std::size_t i = 0; i < 6 && i < messages().size(); ++i)
        log += "step " + std::to_string(i) + ": ok\n" + messages()[(i * 7) % messages().size()] + "\n";
    const std::string crlf = [&] {
        std::string s;
        for (const char c : log) s += c == '\n' ? std::string("\r\n") : std::string(1, c);
        return s;
    }();
    for (const std::string* text : std::vector<const std::string*>{&log, &crlf}) {
        feed(engines.reference, *text);
        ASSERT_FALSE(engines.reference.hits().empty());
        for (std::size_t cut = 0; cut <= text->size(); ++cut) {
            feed(engines.fast, *text, {cut});
            ASSERT_TRUE(same(engines.fast, engines.reference)) << "cut at " << cut;
        }
    }
}

TEST(ExplainVectorscan, LineBreaksNulsAndJunk) {
    auto engines = Engines::make(catalog());
    std::mt19937 random(25);
    for (const auto& f : corpus()) {
        const auto text = read(f);
        std::string crlf, cr, nuls, junk;
        for (const char c : text) {
            crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
            cr += c == '\n' ? '\r' : c;
            nuls += c;
            if (random() % 97 == 0) nuls += '\0';
            junk += random() % 211 == 0 ? static_cast<char>(random() % 256) : c;
        }
        for (const auto* t : {&crlf, &cr, &nuls, &junk}) EXPECT_TRUE(engines.agree(*t, pieces(t->size(), 1 + random() % 700))) << f;
    }
}

TEST(ExplainVectorscan, MegabyteLineWithMessagesAnywhere) {
    auto engines = Engines::make(catalog());
    std::mt19937 random(7);
    std::string line;
    while (line.size() < (3u << 20)) {  // several kMaxCarry slices
        line += std::string(random() % 9000, 'x');
        line += ' ';
        auto m = messages()[random() % messages().size()];
        std::replace(m.begin(), m.end(), '\n', ' ');
        line += m;
        line += ' ';
    }
    const std::string log = "before\n" + line + "\nafter\n" + line;
    EXPECT_TRUE(engines.agree(log));
    EXPECT_TRUE(engines.agree(log, pieces(log.size(), 65536)));
    EXPECT_TRUE(engines.agree(log, pieces(log.size(), 1000003)));
    EXPECT_FALSE(engines.fast.hits().empty());
}

TEST(ExplainVectorscan, MessagesAtWindowEdges) {
    ScanLimits limits;
    limits.max_line = 256;
    auto engines = Engines::make(catalog(), limits);
    const std::string message = "RuntimeError: CUDA error: no kernel image is available for execution on the device";
    const std::string wrapped =
        "RuntimeError: The detected CUDA version (12.1) mismatches the version that was used to compile\nPyTorch (11.8).";
    for (const auto* m : {&message, &wrapped}) {
        for (std::size_t before = 0; before < 300; before += 3) {
            for (std::size_t after : {0, 1, 40, 170, 175, 180, 260}) {
                const std::string line = std::string(before, 'a') + *m + std::string(after, 'b');
                const std::string log = "x\n" + line + "\n" + line + "\r\n" + std::string(before, 'c') + "\r" + line;
                ASSERT_TRUE(engines.agree(log)) << before << " before, " << after << " after";
                ASSERT_TRUE(engines.agree(log, pieces(log.size(), 97))) << before << " before, " << after << " after, in pieces";
            }
        }
    }
}

TEST(ExplainVectorscan, LiteralsEndingNearTheEndOfABlock) {
    // Vectorscan 5.4.9 misses a literal ending 11 to 27 bytes before the end of the buffer it
    // scans, at some addresses of that end, for sets of 5 to 10 literals (vectorscan_padding.hpp).
    // Each message here ends the log at every distance up to 40 bytes from its end and, through
    // the bytes before it, at every end address modulo 64: the log's last block is scanned with
    // the literal there. Without the padding the engine scans with, this test fails.
    std::vector<std::vector<LogPattern>> sets = {{
        {"oom", "CUDA out of memory", R"(CUDA out of memory\.(?: Tried to allocate (\d+(?:\.\d+)? [KMGT]?i?B))?)"},
        {"cannot-open", "cannot open shared object", R"((lib\w+\.so(?:\.\d+)*):\s*cannot open shared object)"},
        {"driver-too-old", "driver on your system is too old", R"(The NVIDIA driver on your system is too old \(found version (\d+)\))"},
        {"wrap", "mismatches the version that was used to compile",
         R"(detected CUDA version \((\d+\.\d+)\) mismatches the version that was used to compile\s+PyTorch \((\d+\.\d+)\))"},
        {"gcc", "nsupported GNU version", R"([Uu]nsupported GNU version!? ?(?:gcc versions )?later than (\d+))"},
    }};
    for (std::size_t k = 5; k <= 10; ++k) sets.emplace_back(catalog().begin(), catalog().begin() + static_cast<std::ptrdiff_t>(k));
    for (const auto& patterns : sets) {
        std::size_t near_end = 0;  // logs whose literal ends 11 to 27 bytes before their end
        auto engines = Engines::make(patterns);
        // Each pattern's message as the shortest text it matches in: the corpus line, cut after the match.
        std::vector<std::pair<std::string, std::size_t>> planted;  // text, bytes after its literal
        for (const auto& p : patterns) {
            const RE2 re(p.regex, cudoctor::formats::detail::byte_options());
            for (const auto& m : messages()) {
                re2::StringPiece match;
                if (!re.Match(m, 0, m.size(), RE2::UNANCHORED, &match, 1)) continue;
                const std::string_view text(match.data(), match.size());
                const auto literal = text.rfind(p.literal);
                if (literal == std::string_view::npos || text.find('\n') != std::string_view::npos) continue;
                planted.emplace_back(std::string(text), text.size() - literal - p.literal.size());
                break;
            }
        }
        ASSERT_GE(planted.size(), 3u);
        for (const auto& [text, tail] : planted) {
            for (std::size_t shift = 0; shift < 64; ++shift) {
                for (std::size_t after = 0; after <= 40; ++after) {
                    const std::string log = "step 1: ok\n" + std::string(shift, '.') + " " + text + std::string(after, ' ');
                    near_end += tail + after >= 11 && tail + after <= 27;
                    ASSERT_TRUE(engines.agree(log)) << text << ": " << shift << " bytes before, " << after << " after";
                    ASSERT_FALSE(engines.reference.hits().empty()) << text;
                    ASSERT_TRUE(engines.agree(log + "\n")) << text << ": " << shift << " bytes before, " << after << " after, then a newline";
                }
            }
        }
        EXPECT_GE(near_end, 64u * 10) << patterns.size() << " patterns: too few logs in the zone Vectorscan misses";
    }
}

TEST(ExplainVectorscan, RandomLogs) {
    auto engines = Engines::make(catalog());
    ScanLimits limits;
    limits.max_line = 300;
    auto narrow = Engines::make(catalog(), limits);
    std::mt19937 random(2026);
    const char* breaks[] = {"\n", "\r\n", "\r", "\n\n", "\r\r\n", "\n\r"};
    const char* filler[] = {"ok", "error: ", "GPU", "http://x", "nvcc -c a.cu", "[]", "False", "install", " object", "sudo ", "WSL", ":"};
    for (int round = 0; round < 300; ++round) {
        std::string log;
        const int parts = 1 + static_cast<int>(random() % 40);
        for (int i = 0; i < parts; ++i) {
            switch (random() % 5) {
                case 0: log += messages()[random() % messages().size()]; break;
                case 1: log += filler[random() % std::size(filler)]; break;
                case 2: log += std::string(random() % 400, 'y'); break;
                case 3:
                    for (int k = static_cast<int>(random() % 20); k > 0; --k) log += static_cast<char>(random() % 256);
                    break;
                default: break;
            }
            log += breaks[random() % std::size(breaks)];
        }
        std::vector<std::size_t> cuts;
        for (std::size_t c = random() % 50; c < log.size(); c += 1 + random() % 200) cuts.push_back(c);
        ASSERT_TRUE(engines.agree(log, cuts)) << "round " << round;
        ASSERT_TRUE(narrow.agree(log)) << "round " << round << ", max_line 300";
    }
}

TEST(ExplainVectorscan, PatternsThePrefilterCannotTake) {
    // A literal missing from some matches, flags, anchors, word boundaries, a regex matching
    // empty text, Unicode classes: each falls back to its widened regex or to every window.
    const std::vector<LogPattern> patterns = {
        {"either", "SYSTEM_DRIVER_MISMATCH", "(?:CUDA_ERROR_SYSTEM_DRIVER_MISMATCH|cudaErrorSystemDriverMismatch)"},
        {"nocase", "device lost", "(?i)gpu device lost"},
        {"anchored", "No devices were found", R"(^No devices were found\s*$)"},
        {"multiline", "Killed", R"((?m)^Killed[ \t\r]*$)"},
        {"words", "wsl2", R"(\bwsl2\b)"},
        {"empty", "x", "x*"},
        {"unicode", "caf", R"(caf\pL)"},
        {"repeat", "xz: ", R"(xz: [^\n]{0,20}: (corrupt))"},
        {"colon", ":", R"((?:Use Cuda|NVIDIA CUDA):\s+NO\b)"},
    };
    auto engines = Engines::make(patterns);
    const std::string log =
        "error: cudaErrorSystemDriverMismatch\n"
        "cudaErrorSystemDriverMismatch alone\n"
        "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: here\n"
        "GPU DEVICE LOST: yes\n"
        "No devices were found\n"
        "\n"
        "No devices were found\n"
        "then more\n"
        "Killed\n"
        "[x] Killed\n"
        "on wsl2 now; nowsl2x\n"
        "xxx and café: caf\xe9\n"
        "xz: file.tar.xz: corrupt\n"
        "xz: a very long name that is far more than twenty bytes: corrupt\n"
        "  NVIDIA CUDA:                 NO\n"
        "  Use Cuda: NOT\n";
    EXPECT_TRUE(engines.agree(log));
    EXPECT_FALSE(engines.fast.hits().empty());
    for (std::size_t cut = 0; cut <= log.size(); ++cut) ASSERT_TRUE(engines.agree(log, {cut})) << "cut at " << cut;
}

TEST(ExplainVectorscan, PlainStringPatternsNeedNoRe2) {
    // A pattern that is only plain strings (literal_alternatives) is matched from its candidates
    // alone: the leftmost string wholly in the window, RE2's choice among those starting there.
    const std::vector<LogPattern> patterns = {
        {"object", " object", R"(Building (?:CUDA|NVCC \(Device\)|CXX|C) object)"},
        {"prefix", "x", "x(?:ab|abcd)"},  // at one place both: RE2 takes the first
        {"overlap", "aa", "(?:aaa|aa)"},
        {"either", "MISMATCH", "(?:CUDA_ERROR_SYSTEM_DRIVER_MISMATCH|cudaErrorSystemDriverMismatch)"},
        {"words", "Building", R"(Building (C|CXX) object)"},  // a capture: RE2 still runs
    };
    ScanLimits narrow;
    narrow.max_line = 256;  // overlong lines: windows cut strings at both ends
    auto engines = Engines::make(patterns);
    auto narrow_engines = Engines::make(patterns, narrow);
    std::mt19937 random(31);
    const char* pieces_of[] = {"Building CXX object",
                               "Building C object",
                               "Building NVCC (Device) object",
                               "Building CUDA object",
                               "xabcd",
                               "xab",
                               "xabc",
                               "aaaa",
                               "aa",
                               "a",
                               "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
                               "cudaErrorSystemDriverMismatch",
                               " ",
                               "\n",
                               "\r\n",
                               "Building ",
                               " object"};
    for (int round = 0; round < 400; ++round) {
        std::string log;
        for (int i = static_cast<int>(random() % 60); i > 0; --i) {
            log += pieces_of[random() % std::size(pieces_of)];
            if (random() % 7 == 0) log += std::string(random() % 300, 'y');
        }
        ASSERT_TRUE(engines.agree(log)) << "round " << round;
        ASSERT_TRUE(narrow_engines.agree(log)) << "round " << round << ", max_line 256";
        ASSERT_TRUE(engines.agree(log, pieces(log.size(), 1 + random() % 97))) << "round " << round << ", in pieces";
    }
    EXPECT_TRUE(engines.agree("[1/9] Building CXX object a.o\nxabcd xab\naaaa\n"));
    ASSERT_EQ(engines.fast.hits().size(), 4u);
    EXPECT_EQ(engines.fast.hits()[0].text, "[1/9] Building CXX object a.o");
    EXPECT_EQ(engines.fast.match_count(1), 1u);  // "xabcd xab": one line
}

TEST(ExplainVectorscan, OneScannerPerThread) {
    // Each scanner has its own Vectorscan scratch: scanners of one catalog run side by side.
    std::string log;
    for (const auto& m : messages()) log += m + "\nplain line\n";
    auto engines = Engines::make(catalog());
    feed(engines.reference, log);
    std::vector<LogScanner> scanners;
    use_vectorscan();
    for (int i = 0; i < 4; ++i) scanners.push_back(std::move(*LogScanner::create(catalog())));
    std::vector<std::thread> threads;
    for (auto& s : scanners) threads.emplace_back([&s, &log] { feed(s, log, pieces(log.size(), 5000)); });
    for (auto& t : threads) t.join();
    for (const auto& s : scanners) EXPECT_TRUE(same(s, engines.reference));
}

TEST(ExplainVectorscan, ByDefaultTheLogsSizeChoosesTheEngine) {
    // A short log: RE2 (no Vectorscan compile); past 8 MiB: Vectorscan, with the first 8 MiB
    // fed to it in the pieces they came in. The same hits either way, whatever the pieces.
    std::string shorter;
    for (const auto& m : messages()) shorter += m + "\n";
    std::string longer;
    std::mt19937 random(8);
    std::string overlong;  // a line of several kMaxCarry slices across the 8 MiB mark: slices depend on the pieces
    while (overlong.size() < (3u << 20))
        overlong += std::string(random() % 9000, 'x') + " " + messages()[random() % messages().size()] + " ";
    std::replace(overlong.begin(), overlong.end(), '\n', ' ');
    while (longer.size() < (6u << 20)) longer += "step ok\n" + messages()[random() % messages().size()] + "\n";
    longer += overlong + "\n";
    while (longer.size() < (10u << 20)) longer += "step ok\n" + messages()[random() % messages().size()] + "\n";
    auto engines = Engines::make(catalog());
    const std::vector<std::string> asked = {"", "re2", "vectorscan"};
    std::vector<LogScanner> scanners;
    for (const auto& a : asked) {
        if (a.empty()) ::unsetenv("CUDOCTOR_LOG_ENGINE");
        else ::setenv("CUDOCTOR_LOG_ENGINE", a.c_str(), 1);
        scanners.push_back(std::move(*LogScanner::create(catalog())));
    }
    for (const auto* log : {&shorter, &longer}) {
        for (const std::size_t piece : {std::size_t{1} << 20, std::size_t{65521}}) {
            feed(engines.reference, *log, pieces(log->size(), piece));
            for (std::size_t i = 0; i < asked.size(); ++i) {
                auto& s = scanners[i];
                feed(s, *log, pieces(log->size(), piece));
                EXPECT_EQ(s.engine(), !asked[i].empty() ? asked[i] : log == &shorter ? "re2" : "vectorscan") << asked[i];
                EXPECT_EQ(s.bytes(), log->size());
                EXPECT_TRUE(same(s, engines.reference)) << asked[i] << ", " << log->size() << " bytes in pieces of " << piece;
            }
        }
    }
    EXPECT_FALSE(engines.reference.hits().empty());
    use_vectorscan();
}

TEST(ExplainVectorscan, AShortLogCompilesOnlyThePatternsThatCanMatchItAndFindsTheSame) {
    // By default a log that ends within 64 KiB is known whole before RE2 is compiled for it: a
    // pattern is left out only when its literal is provably in every match and not in the log.
    // One scanner over the whole corpus (reset between logs: each gets its own compile), in
    // pieces too, against the reference compiled with every pattern; then patterns whose
    // literal is not provably required, which must be kept whatever the log holds.
    ::unsetenv("CUDOCTOR_LOG_ENGINE");
    auto by_size = LogScanner::create(catalog());
    ASSERT_TRUE(by_size);
    auto reference = Re2LogScanner::create(catalog());
    ASSERT_TRUE(reference);
    std::size_t logs = 0, hits = 0;
    for (const auto& f : corpus()) {
        const auto text = read(f);
        if (text.size() > (64u << 10)) continue;
        ++logs;
        feed(*reference, text);
        feed(*by_size, text);
        EXPECT_EQ(by_size->engine(), "re2");
        EXPECT_TRUE(same(*by_size, *reference)) << f;
        hits += by_size->hits().size();
        if (logs % 10 == 0) {  // (each feed is a compile: a tenth of the logs in pieces too)
            feed(*by_size, text, pieces(text.size(), 509));
            EXPECT_TRUE(same(*by_size, *reference)) << f << " in 509-byte pieces";
        }
    }
    EXPECT_GE(logs, 400u);
    EXPECT_GE(hits, 400u);

    const std::vector<LogPattern> weak = {
        {"either", "SYSTEM_DRIVER_MISMATCH", "(?:CUDA_ERROR_SYSTEM_DRIVER_MISMATCH|cudaErrorSystemDriverMismatch)"},
        {"nocase", "device lost", "(?i)gpu device lost"},
        {"colon", ":", R"((?:Use Cuda|NVIDIA CUDA):\s+NO\b)"},
        {"plain", "Killed", "Killed"},
    };
    auto weak_by_size = LogScanner::create(weak);
    auto weak_reference = Re2LogScanner::create(weak);
    ASSERT_TRUE(weak_by_size && weak_reference);
    for (const std::string log : {"cudaErrorSystemDriverMismatch\nSYSTEM_DRIVER_MISMATCH\n", "GPU DEVICE LOST\n", "Killed\n",
                                  "nothing here\n", "a: b\n  NVIDIA CUDA:   NO\nKilled"}) {
        feed(*weak_reference, log);
        feed(*weak_by_size, log);
        EXPECT_TRUE(same(*weak_by_size, *weak_reference)) << log;
    }
    // Its literal is not in this log, yet it matches (the line is a candidate for the colon).
    feed(*weak_by_size, "error: cudaErrorSystemDriverMismatch\n");
    EXPECT_EQ(weak_by_size->match_count(0), 1u);
    use_vectorscan();
}

TEST(ExplainVectorscan, CreateErrors) {
    use_vectorscan();
    EXPECT_EQ(LogScanner::create({}).error().code, cudoctor::Errc::usage);
    auto bad = LogScanner::create({{"p", "abc", "abc("}});
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, cudoctor::Errc::parse);
    EXPECT_EQ(bad.error().message.rfind("pattern p: ", 0), 0u) << bad.error().message;
}

TEST(RegexSuperset, CapturingGroupsAsRe2CountsThem) {
    // Every catalog row, and the places a "(" is not a group, against RE2's own count.
    std::vector<std::string> regexes;
    for (const auto& p : catalog()) regexes.push_back(p.regex);
    for (const char* r : {R"(\(a\))", "[(]", "[]()](b)", "[^]()](b)", R"(\Q(x)\E(y))", R"(\Q(x)(y))", "(?:a)(b)", "(?i)(a)", "(?i:a)(b)",
                          "(?P<name>x)(y)", "[[:alpha:](](c)", R"([\]()](d))", R"((a\)))", "((a)(b))", "a|(b)|(?:c)", R"([a\](])",
                          "x{2}(y)", R"(\\(z))", "[^[:space:]]+(w)"}) {
        regexes.emplace_back(r);
    }
    RE2::Options o;
    o.set_encoding(RE2::Options::EncodingLatin1);
    o.set_log_errors(false);
    std::size_t compared = 0;
    for (const auto& r : regexes) {
        RE2 re(r, o);
        if (!re.ok()) continue;  // the count is only meant for what RE2 takes
        EXPECT_EQ(capturing_groups(r), static_cast<std::size_t>(re.NumberOfCapturingGroups())) << r;
        ++compared;
    }
    EXPECT_GE(compared, catalog().size() + 15);
}

TEST(RegexSuperset, LiteralRequired) {
    EXPECT_TRUE(literal_required("CUDA driver version is insufficient", "driver version is insufficient"));
    EXPECT_TRUE(literal_required(R"([Dd]river/[Ll]ibrary version mismatch)", "ibrary version mismatch"));
    EXPECT_TRUE(literal_required(R"(cudaErrorInsufficientDriver(?:\)| ?:))", "cudaErrorInsufficientDriver"));
    EXPECT_TRUE(literal_required(R"(The NVIDIA driver on your system is too old \(found version (\d+)\))", "too old (found"));
    EXPECT_TRUE(literal_required("(?:abc(?:def|xdefy))", "def"));
    EXPECT_TRUE(literal_required("a|b", ""));
    EXPECT_FALSE(literal_required("(?:CUDA_ERROR_SYSTEM_DRIVER_MISMATCH|cudaErrorSystemDriverMismatch)", "SYSTEM_DRIVER_MISMATCH"));
    EXPECT_FALSE(literal_required("abcd?ef", "abcdef"));   // the d is optional
    EXPECT_FALSE(literal_required("abc+def", "abcdef"));   // and c may repeat
    EXPECT_FALSE(literal_required("abc(?:def)?", "def"));  // an optional group
    EXPECT_FALSE(literal_required("abc(?:def){0,3}", "def"));
    EXPECT_FALSE(literal_required("(?i)abc", "abc"));  // flags: not read
    EXPECT_FALSE(literal_required(R"([Uu]nable to locate)", "unable"));
    EXPECT_FALSE(literal_required(R"(couldn.{1,3}t find)", "couldn't find"));
    EXPECT_FALSE(literal_required(R"(\x41BC)", "ABC"));
    EXPECT_FALSE(literal_required("abc)", "abc"));  // unbalanced
    EXPECT_TRUE(literal_required("x{2}abc", "abc"));
    EXPECT_TRUE(literal_required(R"(a\.b\(c)", "a.b(c"));
}

TEST(RegexSuperset, SupersetExpression) {
    EXPECT_EQ(superset_expression(R"(^No devices were found\s*$)"), R"(No devices were found\s*)");
    EXPECT_EQ(superset_expression(R"(\bwsl2\b)"), "wsl2");
    EXPECT_EQ(superset_expression(R"((?:^|[^/\w])WSL(?:[^/\w]|$))"), R"((?:|[^/\w])WSL(?:[^/\w]|))");
    EXPECT_EQ(superset_expression(R"(xz: [^\n]{0,200}: x{2}y{3,})"), R"(xz: [^\n]*: x*y*)");
    EXPECT_EQ(superset_expression(R"([$^]\$\^\{a{,3}})"), R"([$^]\$\^\{a\{,3\}\})");
    EXPECT_EQ(superset_expression(R"(\x{41}{2}\x41)"), R"(\x{41}*\x41)");
    EXPECT_EQ(superset_expression(R"([]a]^)"), "[]a]");
    EXPECT_EQ(superset_expression(R"(caf\pL)"), std::nullopt);
    EXPECT_EQ(superset_expression(R"(abc\)"), std::nullopt);
    EXPECT_EQ(superset_expression(R"([abc)"), std::nullopt);
}

TEST(RegexSuperset, LiteralAlternatives) {
    using cudoctor::formats::detail::literal_alternatives;
    using Strings = std::vector<std::string>;
    EXPECT_EQ(literal_alternatives("CUDA out of memory"), Strings{"CUDA out of memory"});
    EXPECT_EQ(literal_alternatives(R"(Building (?:CUDA|NVCC \(Device\)|CXX|C) object)"),
              (Strings{"Building CUDA object", "Building NVCC (Device) object", "Building CXX object", "Building C object"}));
    EXPECT_EQ(literal_alternatives("a|b(?:c|d)e"), (Strings{"a", "bce", "bde"}));
    EXPECT_EQ(literal_alternatives("x(?:|y)"), (Strings{"x", "xy"}));
    EXPECT_EQ(literal_alternatives(R"(a\.b\-c)"), Strings{"a.b-c"});
    for (const char* no : {"",   "a|",    "(a)",     "a?",        "a*",    "a+",   "a{2}", "[ab]", ".",  "^a",
                           "a$", R"(\d)", R"(\x41)", R"(\bword)", "(?i)a", "(?:a", "a)",   "a]",   "a}", R"(a\)"})
        EXPECT_EQ(literal_alternatives(no), std::nullopt) << no;
    std::string many = "(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b)";  // 64 strings: the most
    EXPECT_EQ(literal_alternatives(many)->size(), 64u);
    EXPECT_EQ(literal_alternatives(many + "(?:a|b)"), std::nullopt);
}

TEST(RegexSuperset, HasAssertions) {
    EXPECT_FALSE(has_assertions(R"(Building (?:CUDA|CXX) object [^$^]\$\^)"));
    EXPECT_FALSE(has_assertions(R"(xz: [^\n]{0,200}: (corrupt))"));
    EXPECT_TRUE(has_assertions(R"(^No devices were found\s*$)"));
    EXPECT_TRUE(has_assertions(R"(\bwsl2\b)"));
    EXPECT_TRUE(has_assertions(R"(a\Bb)"));
    EXPECT_TRUE(has_assertions(R"(caf\pL)"));  // not read: assumed
}

}  // namespace explain_vectorscan_test

TEST(RegexSuperset, RequiredAtoms) {
    using cudoctor::formats::detail::required_atoms;
    // A message's translations: one of them is in every match, the short library name is not needed.
    const auto t = required_atoms("(libcudnn\\w*\\.so(?:\\.\\d+)*): (?:kann die Shared-Object-Datei nicht|ne peut ouvrir le fichier)", 8);
    ASSERT_TRUE(t.has_value());
    std::vector<std::string> want = {"kann die shared-object-datei nicht", "ne peut ouvrir le fichier"};
    auto got = *t;
    for (auto& a : got) a.erase(0, a.find_first_not_of(": "));  // (RE2 may join the ": " before them)
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want);
    // Every branch needs a long string, case folded.
    EXPECT_EQ(required_atoms("[Cc]ould not find nvcc|nvcc was not found", 8).value_or(std::vector<std::string>{}).size(), 2u);
    // A branch without any string that long: nothing is required.
    EXPECT_FALSE(required_atoms("Killed|exit code 137", 8).has_value());
    EXPECT_FALSE(required_atoms("\\d+", 8).has_value());
    EXPECT_FALSE(required_atoms("(unclosed", 8).has_value());
}
