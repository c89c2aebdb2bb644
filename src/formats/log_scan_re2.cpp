// The reference engine: the first LogScanner, unchanged but for its name (see log_scan_re2.hpp).
#include "formats/log_scan_re2.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include <re2/re2.h>
#include <re2/set.h>

#include "formats/log_scan_detail.hpp"
#include "formats/regex_superset.hpp"

namespace cudoctor::formats::detail {

struct Re2LogScanner::Impl {
    std::vector<LogPattern> patterns;
    ScanLimits limits;
    std::unique_ptr<RE2> prefilter;
    std::unique_ptr<RE2::Set> set;              // null when no pattern can match
    std::vector<std::unique_ptr<RE2>> regexes;  // by pattern; null for one that cannot match the text
    std::vector<std::size_t> set_patterns;      // the pattern of each of the set's regexes, ascending

    std::vector<LogHit> hits;
    std::vector<std::size_t> counts;
    // The last line each pattern matched: lines come in order, so a line seen twice (through the
    // window of the line before it, or the overlap of a sliced long line) is never counted twice.
    std::vector<std::size_t> last_line;
    std::string carry;         // an unfinished line from the previous feed
    std::size_t newlines = 0;  // '\n' before the current block
    std::size_t total_bytes = 0;
    bool ended_without_newline = false;
    std::vector<int> ids;  // reused

    // Finds hits starting in block[0, scan_end); the rest of block is look-ahead for windows.
    void scan_block(std::string_view block, std::size_t scan_end);
    void match_window(std::string_view block, std::size_t line_start, std::size_t line_of_start, std::size_t w_begin, std::size_t w_end);
};

Expected<void> Re2LogScanner::check(const std::vector<LogPattern>& patterns) {
    if (patterns.empty()) return fail(Errc::usage, "no patterns to scan for");
    RE2::Set parsed(byte_options(), RE2::UNANCHORED);  // Add parses; only Compile would compile
    for (const auto& p : patterns) {
        if (p.id.empty()) return fail(Errc::parse, "a pattern without an id");
        if (p.literal.empty()) return fail(Errc::parse, "pattern " + p.id + ": empty literal");
        if (!is_ascii(p.literal) || !is_ascii(p.regex)) return fail(Errc::parse, "pattern " + p.id + ": only ASCII text is allowed");
        std::string error;
        if (parsed.Add(p.regex, &error) < 0) return fail(Errc::parse, "pattern " + p.id + ": " + error);
    }
    return {};
}

Expected<Re2LogScanner> Re2LogScanner::create(std::vector<LogPattern> patterns, ScanLimits limits, std::optional<std::string_view> text) {
    if (auto ok = check(patterns); !ok) return Unexpected<Error>(ok.error());
    return create_checked(std::move(patterns), limits, text);
}

Expected<Re2LogScanner> Re2LogScanner::create_checked(std::vector<LogPattern> patterns, ScanLimits limits,
                                                      std::optional<std::string_view> text) {
    auto impl = std::make_unique<Impl>();
    impl->limits = limits;
    impl->limits.max_line = std::max<std::size_t>(limits.max_line, 256);
    const auto options = byte_options();
    const auto in_text = [&](const std::string& literal) { return !text || text->find(literal) != std::string_view::npos; };
    std::set<std::string> literals;
    impl->regexes.resize(patterns.size());
    for (std::size_t i = 0; i < patterns.size(); ++i) {
        const auto& p = patterns[i];
        if (in_text(p.literal)) literals.insert(p.literal);
        // Not in the text, and in every match: this pattern matches nowhere in it.
        if (!in_text(p.literal) && literal_required(p.regex, p.literal)) continue;
        auto re = std::make_unique<RE2>(p.regex, options);
        if (!re->ok()) return fail(Errc::parse, "pattern " + p.id + ": " + re->error());
        impl->regexes[i] = std::move(re);
        impl->set_patterns.push_back(i);
    }
    if (!impl->set_patterns.empty()) {
        impl->set = std::make_unique<RE2::Set>(options, RE2::UNANCHORED);
        for (const auto i : impl->set_patterns) {
            std::string error;
            if (impl->set->Add(patterns[i].regex, &error) < 0) return fail(Errc::parse, "pattern " + patterns[i].id + ": " + error);
        }
        if (!impl->set->Compile()) return fail(Errc::parse, "the patterns are too many or too large to compile together");
    }
    // No literal in the text, or no pattern that can match: no line is a candidate.
    if (!literals.empty() && impl->set) {
        std::string alternation;
        for (const auto& l : literals) {
            if (!alternation.empty()) alternation += '|';
            alternation += RE2::QuoteMeta(l);
        }
        impl->prefilter = std::make_unique<RE2>(alternation, options);
        if (!impl->prefilter->ok()) return fail(Errc::parse, "literals: " + impl->prefilter->error());
    }
    impl->counts.assign(patterns.size(), 0);
    impl->last_line.assign(patterns.size(), 0);
    impl->patterns = std::move(patterns);
    return Re2LogScanner(std::move(impl));
}

Re2LogScanner::Re2LogScanner(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
Re2LogScanner::Re2LogScanner(Re2LogScanner&&) noexcept = default;
Re2LogScanner& Re2LogScanner::operator=(Re2LogScanner&&) noexcept = default;
Re2LogScanner::~Re2LogScanner() = default;

const std::vector<LogHit>& Re2LogScanner::hits() const { return m_impl->hits; }
std::size_t Re2LogScanner::match_count(std::size_t index) const { return index < m_impl->counts.size() ? m_impl->counts[index] : 0; }
const std::vector<LogPattern>& Re2LogScanner::patterns() const { return m_impl->patterns; }
std::size_t Re2LogScanner::lines() const { return m_impl->newlines + (m_impl->ended_without_newline ? 1 : 0); }
std::size_t Re2LogScanner::bytes() const { return m_impl->total_bytes; }

void Re2LogScanner::feed(std::string_view bytes) {
    auto& m = *m_impl;
    m.total_bytes += bytes.size();
    const std::size_t old = m.carry.size();
    m.carry.append(bytes);
    // Scan up to the line before the last complete one: that last line stays as look-ahead, so a
    // message wrapping onto the next line is seen whole however the log was cut into pieces.
    // A line ends at '\n', '\r' or "\r\n" (one break, as scan_block reads it). Only a break that
    // arrived with these bytes can complete a line (or the carry's old last byte, a '\r').
    if (const std::size_t last = last_complete_break(m.carry, old > 0 ? old - 1 : 0); last > 0) {
        std::size_t line_end = last - 1;  // the break that ends the last complete line
        if (m.carry[line_end] == '\n' && line_end > 0 && m.carry[line_end - 1] == '\r') --line_end;
        std::size_t before = line_end;
        while (before > 0 && !is_break(m.carry[before - 1])) --before;
        if (before > 0) {
            m.scan_block(m.carry, before);
            m.carry.erase(0, before);
        }
    }
    // An overlong line grows in the carry: scan it in slices.
    if (m.carry.size() > kMaxCarry) {
        const std::size_t cut = m.carry.size() - kOverlap;
        m.scan_block(m.carry, cut);
        m.carry.erase(0, cut);
    }
}

void Re2LogScanner::finish() {
    auto& m = *m_impl;
    if (!m.carry.empty()) {
        m.ended_without_newline = m.carry.back() != '\n';
        m.scan_block(m.carry, m.carry.size());
        m.carry.clear();
    }
}

void Re2LogScanner::reset() {
    auto& m = *m_impl;
    m.hits.clear();
    m.counts.assign(m.patterns.size(), 0);
    m.last_line.assign(m.patterns.size(), 0);
    m.carry.clear();
    m.newlines = 0;
    m.total_bytes = 0;
    m.ended_without_newline = false;
}

void Re2LogScanner::Impl::scan_block(std::string_view block, std::size_t scan_end) {
    const std::size_t n = block.size();
    const std::size_t max_line = limits.max_line;
    std::size_t pos = 0;
    std::size_t counted = 0;  // '\n' in block[0, counted) are in `newlines`
    re2::StringPiece found;
    while (prefilter && pos < scan_end && prefilter->Match(block, pos, scan_end, RE2::UNANCHORED, &found, 1)) {
        const std::size_t hit = static_cast<std::size_t>(found.data() - block.data());
        // The line around the hit, looking no further than one max_line each way.
        std::size_t start = hit;
        const std::size_t back_floor = hit > max_line ? hit - max_line : 0;
        while (start > back_floor && !is_break(block[start - 1])) --start;
        const bool start_known = start == 0 || is_break(block[start - 1]);
        std::size_t end = hit + found.size();
        const std::size_t fwd_ceiling = std::min(n, hit + max_line);
        while (end < fwd_ceiling && !is_break(block[end])) ++end;
        const bool end_known = end == n || is_break(block[end]);

        std::size_t w_begin = start, w_end = end;
        if (!start_known || !end_known || end - start > max_line) {
            w_begin = std::max(start, hit > max_line / 4 ? hit - max_line / 4 : 0);
            w_end = std::min(end, w_begin + max_line);
        } else {
            // Messages wrap: the next line takes part when the two fit in one window.
            std::size_t next = end;
            if (next < n && block[next] == '\r' && next + 1 < n && block[next + 1] == '\n') ++next;
            if (next < n) {
                std::size_t next_end = next + 1;
                while (next_end < n && next_end - start <= max_line && !is_break(block[next_end])) ++next_end;
                if (next_end - start <= max_line) w_end = next_end;
            }
        }
        const std::size_t count_to = std::max(counted, start);
        newlines += static_cast<std::size_t>(std::count(block.begin() + counted, block.begin() + count_to, '\n'));
        counted = count_to;
        match_window(block, start, newlines, w_begin, w_end);
        // Continue after this line; inside an overlong line, after this window.
        pos = (end_known && w_end >= end) ? end + 1 : std::max(w_end, hit + 1);
    }
    if (counted < scan_end) newlines += static_cast<std::size_t>(std::count(block.begin() + counted, block.begin() + scan_end, '\n'));
}

void Re2LogScanner::Impl::match_window(std::string_view block, std::size_t line_start, std::size_t line_of_start, std::size_t w_begin,
                                       std::size_t w_end) {
    const std::string_view window = block.substr(w_begin, w_end - w_begin);
    ids.clear();
    if (!set->Match(window, &ids)) return;
    std::sort(ids.begin(), ids.end());
    for (int id : ids) {
        const auto index = set_patterns[static_cast<std::size_t>(id)];
        const RE2& re = *regexes[index];
        const int groups = re.NumberOfCapturingGroups();
        std::vector<re2::StringPiece> sub(static_cast<std::size_t>(groups) + 1);
        if (!re.Match(window, 0, window.size(), RE2::UNANCHORED, sub.data(), groups + 1)) continue;
        const std::size_t m_begin = static_cast<std::size_t>(sub[0].data() - block.data());
        const std::size_t m_end = m_begin + sub[0].size();
        const std::size_t line =
            line_of_start + 1 + static_cast<std::size_t>(std::count(block.begin() + line_start, block.begin() + m_begin, '\n'));
        if (line <= last_line[index]) continue;
        last_line[index] = line;
        ++counts[index];
        keep_hit(hits, limits.hits_per_pattern, index, line, block, m_begin, m_end, w_begin, w_end, sub.data(), groups);
    }
}

}  // namespace cudoctor::formats::detail
