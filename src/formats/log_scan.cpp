#include "formats/log_scan.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <utility>

#include "formats/log_scan_re2.hpp"
#include "formats/log_scan_vectorscan.hpp"
#include "formats/opened_libraries.hpp"

// Two engines behind one interface, finding the same hits (tests/unit/explain_vectorscan_test.cpp):
//   * Vectorscan (log_scan_vectorscan.cpp): one pass over each block, for the whole catalog at
//     once, finds the few windows worth RE2's time: ripgrep's speed on a large log. Compiling its
//     databases takes about 80 ms for the catalog.
//   * RE2 (log_scan_re2.cpp, the first engine): an RE2 alternation of the literals, then RE2::Set
//     on each candidate window: five times Vectorscan's time per byte, compiled in about 45 ms.
// CUDOCTOR_LOG_ENGINE=vectorscan or =re2 asks for one. By default the log's size chooses: its
// first kDecideBytes wait, in the pieces they came in, until the log ends there (RE2 reads them:
// a message or a short log is answered without Vectorscan's compile) or grows past them
// (Vectorscan is compiled and reads them, then the rest). The chosen engine gets the pieces as
// they came, so the answer is the one that engine gives when fed directly. A log that ended
// within kNarrowBytes is known whole before RE2 is compiled: only the patterns that can match
// in it are (explain on an 832-byte message: 70 ms before, 12 ms in all after).

namespace cudoctor::formats {

namespace {

// RE2 reads about this much of a log in the time the catalog's Vectorscan databases take to compile.
constexpr std::size_t kDecideBytes = 8u << 20;
// A log that ends within this is searched for each literal before RE2 is compiled for it (one
// pass per literal: 4-5 ms for the catalog's 598 at this size, measured; compiling all is ~45).
constexpr std::size_t kNarrowBytes = 64u << 10;

}  // namespace

struct LogScanner::Impl {
    std::vector<LogPattern> patterns;  // for compiling Vectorscan once the log is large
    ScanLimits limits;
    std::optional<detail::Re2LogScanner> re2;
    std::optional<detail::VectorscanLogScanner> vectorscan;
    bool on_vectorscan = false;     // the engine in use
    bool by_size = false;           // the default: the log's size chooses (again after reset())
    bool deciding = false;          // by size, not chosen yet: the log waits
    bool vectorscan_fails = false;  // Vectorscan refused the patterns once: RE2 it is
    bool re2_narrowed = false;      // `re2` was compiled for the one log read: made again after reset()
    std::string error;              // the engine this log needed could not be compiled
    std::string waiting;
    std::vector<std::size_t> pieces;  // the sizes of the feeds `waiting` came in

    void decide(bool large) {
        deciding = false;
        if (large && !vectorscan && !vectorscan_fails) {
            auto v = detail::VectorscanLogScanner::create(patterns, limits);
            if (v) vectorscan.emplace(std::move(*v));
            vectorscan_fails = !v;  // (RE2 took these patterns: the same hits, only slower)
        }
        on_vectorscan = large && vectorscan;
        if (!on_vectorscan && !re2) {
            // The whole log is here when it ended small: RE2 for the patterns that can match it.
            const bool narrow = !large && waiting.size() <= kNarrowBytes;
            // (create() took them through check(): not parsed a second time.)
            auto r =
                detail::Re2LogScanner::create_checked(patterns, limits, narrow ? std::optional<std::string_view>(waiting) : std::nullopt);
            if (!r) {
                error = r.error().message;  // only a set too large to compile: check() took the rest
                std::string().swap(waiting);
                pieces.clear();
                return;
            }
            re2.emplace(std::move(*r));
            re2_narrowed = narrow;
        }
        std::size_t at = 0;
        for (const auto n : pieces) {
            feed(std::string_view(waiting).substr(at, n));
            at += n;
        }
        std::string().swap(waiting);
        pieces.clear();
    }
    void feed(std::string_view bytes) {
        if (on_vectorscan) vectorscan->feed(bytes);
        else if (re2) re2->feed(bytes);
    }
    bool scanning() const { return on_vectorscan || re2; }
};

Expected<LogScanner> LogScanner::create(std::vector<LogPattern> patterns, ScanLimits limits) {
    if (patterns.empty()) return fail(Errc::usage, "no patterns to scan for");
    auto impl = std::make_unique<Impl>();
    const char* asked = std::getenv("CUDOCTOR_LOG_ENGINE");
    const std::string_view engine = asked ? asked : "";
    // Vectorscan needs SSSE3 at least, and its library: without them, RE2 whatever was asked.
    const auto& hs = libhs();
    const bool can_vectorscan = hs.error.empty() && hs.valid_platform() == HS_SUCCESS;
    if (engine == "vectorscan" && can_vectorscan) {
        auto vectorscan = detail::VectorscanLogScanner::create(std::move(patterns), limits);
        if (!vectorscan) return Unexpected<Error>(vectorscan.error());
        impl->vectorscan.emplace(std::move(*vectorscan));
        impl->on_vectorscan = true;
        return LogScanner(std::move(impl));
    }
    impl->by_size = impl->deciding = engine != "re2" && engine != "vectorscan" && can_vectorscan;
    if (impl->by_size) {
        // Compiled once the log's size has chosen the engine; refused now if it would be refused then.
        if (auto ok = detail::Re2LogScanner::check(patterns); !ok) return Unexpected<Error>(ok.error());
        impl->patterns = std::move(patterns), impl->limits = limits;
        return LogScanner(std::move(impl));
    }
    auto re2 = detail::Re2LogScanner::create(std::move(patterns), limits);
    if (!re2) return Unexpected<Error>(re2.error());
    impl->re2.emplace(std::move(*re2));
    return LogScanner(std::move(impl));
}

LogScanner::LogScanner(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
LogScanner::LogScanner(LogScanner&&) noexcept = default;
LogScanner& LogScanner::operator=(LogScanner&&) noexcept = default;
LogScanner::~LogScanner() = default;

void LogScanner::feed(std::string_view bytes) {
    auto& m = *m_impl;
    if (!m.deciding) return m.feed(bytes);
    m.waiting.append(bytes);
    m.pieces.push_back(bytes.size());
    if (m.waiting.size() >= kDecideBytes) m.decide(true);
}

void LogScanner::finish() {
    auto& m = *m_impl;
    if (m.deciding) m.decide(false);
    if (m.on_vectorscan) m.vectorscan->finish();
    else if (m.re2) m.re2->finish();
}

void LogScanner::reset() {
    auto& m = *m_impl;
    if (m.re2_narrowed) m.re2.reset(), m.re2_narrowed = false;  // compiled for the last log only
    if (m.re2) m.re2->reset();
    if (m.vectorscan) m.vectorscan->reset();
    m.error.clear();
    if (m.by_size) {
        m.deciding = true;
        m.on_vectorscan = false;
        m.waiting.clear();
        m.pieces.clear();
    }
}

const std::vector<LogHit>& LogScanner::hits() const {
    static const std::vector<LogHit> none;
    if (!m_impl->scanning()) return none;
    return m_impl->on_vectorscan ? m_impl->vectorscan->hits() : m_impl->re2->hits();
}
std::size_t LogScanner::match_count(std::size_t index) const {
    if (!m_impl->scanning()) return 0;
    return m_impl->on_vectorscan ? m_impl->vectorscan->match_count(index) : m_impl->re2->match_count(index);
}
const std::vector<LogPattern>& LogScanner::patterns() const {
    if (!m_impl->scanning()) return m_impl->patterns;  // by size, not chosen yet: kept for the choice
    return m_impl->on_vectorscan ? m_impl->vectorscan->patterns() : m_impl->re2->patterns();
}
std::size_t LogScanner::lines() const {
    if (!m_impl->scanning()) return 0;
    return m_impl->on_vectorscan ? m_impl->vectorscan->lines() : m_impl->re2->lines();
}
std::size_t LogScanner::bytes() const {
    if (m_impl->deciding) return m_impl->waiting.size();
    if (!m_impl->scanning()) return 0;
    return m_impl->on_vectorscan ? m_impl->vectorscan->bytes() : m_impl->re2->bytes();
}
const std::string& LogScanner::error() const { return m_impl->error; }
std::string_view LogScanner::engine() const { return m_impl->on_vectorscan ? "vectorscan" : "re2"; }

std::string printable_line(std::string_view s, std::size_t max) {
    std::string out;
    out.reserve(std::min(s.size(), max) + 4);
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == 0x1b && i + 1 < s.size() && s[i + 1] == '[') {  // ANSI colour: ESC [ params letter
            std::size_t j = i + 2;
            while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == ';')) ++j;
            i = (j < s.size()) ? j + 1 : j;
            continue;
        }
        std::size_t len = 1;
        bool valid = true;
        if (c >= 0x80) {
            len = c >= 0xf0 ? (c <= 0xf4 ? 4 : 0) : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
            valid = len != 0 && i + len <= s.size();
            for (std::size_t k = 1; valid && k < len; ++k) valid = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
            if (!valid) len = 1;
        }
        if (out.size() + len > max) {
            out += "…";
            return out;
        }
        if (!valid || (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) out += '?';
        else out.append(s.substr(i, len));
        i += len;
    }
    // Trailing line breaks and spaces add nothing to a quoted line.
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ' || out.back() == '\t')) out.pop_back();
    return out;
}

}  // namespace cudoctor::formats
