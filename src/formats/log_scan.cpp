#include "formats/log_scan.hpp"

#include <hs/hs.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <utility>

#include "formats/log_scan_re2.hpp"
#include "formats/log_scan_vectorscan.hpp"

// Two engines behind one interface, finding the same hits (tests/unit/explain_vectorscan_test.cpp):
//   * RE2 (log_scan_re2.cpp, the first engine): an RE2 alternation of the literals, then RE2::Set
//     on each candidate window.
//   * Vectorscan (log_scan_vectorscan.cpp): one Vectorscan pass over each block finds the few
//     windows worth RE2's time.
// By default the RE2 one; CUDOCTOR_LOG_ENGINE=vectorscan asks for the other.

namespace cudoctor::formats {

struct LogScanner::Impl {
    std::optional<detail::Re2LogScanner> re2;
    std::optional<detail::VectorscanLogScanner> vectorscan;
};

Expected<LogScanner> LogScanner::create(std::vector<LogPattern> patterns, ScanLimits limits) {
    if (patterns.empty()) return fail(Errc::usage, "no patterns to scan for");
    auto impl = std::make_unique<Impl>();
    if (const char* engine = std::getenv("CUDOCTOR_LOG_ENGINE"); engine && std::string_view(engine) == "vectorscan") {
        auto vectorscan = detail::VectorscanLogScanner::create(std::move(patterns), limits);
        if (!vectorscan) return Unexpected<Error>(vectorscan.error());
        impl->vectorscan.emplace(std::move(*vectorscan));
    } else {
        auto re2 = detail::Re2LogScanner::create(std::move(patterns), limits);
        if (!re2) return Unexpected<Error>(re2.error());
        impl->re2.emplace(std::move(*re2));
    }
    return LogScanner(std::move(impl));
}

LogScanner::LogScanner(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
LogScanner::LogScanner(LogScanner&&) noexcept = default;
LogScanner& LogScanner::operator=(LogScanner&&) noexcept = default;
LogScanner::~LogScanner() = default;

// Every call goes to the engine in use.
#define CUDOCTOR_LOG_ENGINE_CALL(call) (m_impl->vectorscan ? m_impl->vectorscan->call : m_impl->re2->call)
void LogScanner::feed(std::string_view bytes) { CUDOCTOR_LOG_ENGINE_CALL(feed(bytes)); }
void LogScanner::finish() { CUDOCTOR_LOG_ENGINE_CALL(finish()); }
void LogScanner::reset() { CUDOCTOR_LOG_ENGINE_CALL(reset()); }
const std::vector<LogHit>& LogScanner::hits() const { return CUDOCTOR_LOG_ENGINE_CALL(hits()); }
std::size_t LogScanner::match_count(std::size_t index) const { return CUDOCTOR_LOG_ENGINE_CALL(match_count(index)); }
const std::vector<LogPattern>& LogScanner::patterns() const { return CUDOCTOR_LOG_ENGINE_CALL(patterns()); }
std::size_t LogScanner::lines() const { return CUDOCTOR_LOG_ENGINE_CALL(lines()); }
std::size_t LogScanner::bytes() const { return CUDOCTOR_LOG_ENGINE_CALL(bytes()); }
#undef CUDOCTOR_LOG_ENGINE_CALL

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
