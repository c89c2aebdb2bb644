// The Vectorscan engine of formats::LogScanner (see log_scan_vectorscan.hpp).
#include "formats/log_scan_vectorscan.hpp"

#include <string.h>  // memrchr (GNU)
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <utility>

#include <re2/re2.h>

#include "formats/log_scan_detail.hpp"
#include "formats/opened_libraries.hpp"
#include "formats/regex_superset.hpp"
#include "formats/vectorscan_padding.hpp"

// How the Vectorscan engine finds the few places worth RE2's time:
//
// The lines looked at, and the window of text each is matched in, are exactly those of the
// reference engine (log_scan_re2.cpp, where an RE2 alternation of the literals finds them): a
// line holding a literal, with the next line when both fit in max_line, or windows around each
// literal of an overlong line. What changes is which patterns run there, and which lines are
// visited at all:
//   * Candidates. One Vectorscan pass over each block reports where a pattern may match: for a
//     pattern whose literal is long (kStrongLiteral) and provably in every match, the places the
//     literal ends; for one where RE2's pre-filter (FilteredRE2) finds a set of longer strings
//     that every match needs one of (required_atoms), the places those end, without case; for
//     the others (a literal like ":" is everywhere), the places a widened copy
//     of the regex itself ends (regex_superset.hpp: anchors and word boundaries dropped, bounded
//     repeats unbounded, so it matches wherever RE2 could, in any window). A window runs RE2 only
//     for the patterns with a candidate ending inside it; a window without any is skipped, as the
//     reference's RE2::Set would have found nothing there.
//   * Jumps. A window reaches at most two line breaks past the line of its literal. So, before
//     the next candidate, every line more than four breaks back can only make windows without a
//     candidate: the scan jumps there, and looks for literals (a second Vectorscan database, of
//     all literals, scanned in a small slice) only from there on.
// A pattern Vectorscan cannot compile even as a pre-filter is a candidate in every window, and
// then no line is skipped: slower, never different.
// Every Vectorscan scan carries padding after the block: Debian's Vectorscan 5.4.9 misses literals
// ending near the end of the buffer it scans (vectorscan_padding.hpp).

namespace cudoctor::formats::detail {

// Named, not anonymous: VectorscanLogScanner::Impl (a class with linkage) holds members of these types.
namespace vectorscan_engine {

constexpr auto npos = std::string_view::npos;

// A literal at least this long, in every match of its pattern, is rare enough to stand for it.
constexpr std::size_t kStrongLiteral = 8;

struct DatabaseFree {
    void operator()(hs_database_t* db) const { libhs().free_database(db); }
};
struct ScratchFree {
    void operator()(hs_scratch_t* s) const { libhs().free_scratch(s); }
};
using Database = std::unique_ptr<hs_database_t, DatabaseFree>;
using Scratch = std::unique_ptr<hs_scratch_t, ScratchFree>;

std::string compile_error_text(hs_compile_error_t* error) {
    std::string text = error && error->message ? error->message : "unknown error";
    libhs().free_compile_error(error);
    return text;
}

/// The '\n' in s, sixteen bytes at a time (every byte of a log is counted once): a lane of `seen`
/// counts the '\n' in its column, for at most 255 rows before it is added up.
std::size_t count_newlines(std::string_view s) {
    using Bytes = unsigned char __attribute__((vector_size(16)));
    constexpr Bytes kNewlines = {'\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n'};
    const char* p = s.data();
    std::size_t n = 0, i = 0;
    while (s.size() - i >= 16) {
        Bytes seen = {};
        for (std::size_t rows = std::min<std::size_t>((s.size() - i) / 16, 255); rows > 0; --rows, i += 16) {
            Bytes row;
            std::memcpy(&row, p + i, 16);
            seen -= reinterpret_cast<Bytes>(row == kNewlines);  // all ones (-1) where the byte is '\n'
        }
        for (int lane = 0; lane < 16; ++lane) n += seen[lane];
    }
    for (; i < s.size(); ++i) n += p[i] == '\n';
    return n;
}

/// The widened regexes' database, and the patterns it could not take (they run in every window).
struct RegexDatabase {
    Database db;
    std::vector<std::uint32_t> refused;
    std::vector<std::uint32_t> exact;  // compiled as they are, not as a pre-filter: every match end is reported
};

/// Exact where Vectorscan can, else as its pre-filter, else refused. `flags`: each expression's
/// own (HS_FLAG_CASELESS for a required atom).
RegexDatabase compile_widened(std::vector<std::string> widened, std::vector<unsigned> ids, std::vector<unsigned> flags) {
    RegexDatabase out;
    std::vector<const char*> expressions;
    while (!widened.empty()) {
        expressions.clear();
        for (const auto& w : widened) expressions.push_back(w.c_str());
        hs_database_t* db = nullptr;
        hs_compile_error_t* error = nullptr;
        if (libhs().compile_multi(expressions.data(), flags.data(), ids.data(), static_cast<unsigned>(widened.size()), HS_MODE_BLOCK,
                                  nullptr, &db, &error) == HS_SUCCESS) {
            out.db.reset(db);
            for (std::size_t k = 0; k < ids.size(); ++k)
                if (!(flags[k] & (HS_FLAG_PREFILTER | HS_FLAG_CASELESS))) out.exact.push_back(ids[k]);
            break;
        }
        const int bad = error ? error->expression : -1;
        (void)compile_error_text(error);
        if (bad < 0 || static_cast<std::size_t>(bad) >= widened.size()) {  // the set as a whole: none pre-filtered
            out.refused.insert(out.refused.end(), ids.begin(), ids.end());
            break;
        }
        const auto b = static_cast<std::size_t>(bad);
        if (!(flags[b] & HS_FLAG_PREFILTER)) {
            flags[b] |= HS_FLAG_PREFILTER;
            continue;
        }
        out.refused.push_back(ids[b]);
        widened.erase(widened.begin() + static_cast<std::ptrdiff_t>(b));
        ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(b));
        flags.erase(flags.begin() + static_cast<std::ptrdiff_t>(b));
    }
    return out;
}

/// A place where a pattern may match: a match of its literal or widened regex ends at `end`.
struct Candidate {
    std::size_t end;
    std::uint32_t pattern;
    bool operator<(const Candidate& o) const { return end != o.end ? end < o.end : pattern < o.pattern; }
};

}  // namespace vectorscan_engine
using namespace vectorscan_engine;

struct VectorscanLogScanner::Impl {
    std::vector<LogPattern> patterns;
    ScanLimits limits;
    std::vector<std::unique_ptr<RE2>> regexes;

    // Vectorscan: all literals (where windows are), candidates by literal, candidates by regex.
    Database literal_db, regex_db;
    Scratch scratch;                          // this scanner's own: scanning is thread-safe per instance
    std::vector<std::size_t> literal_length;  // by id in literal_db
    std::size_t longest_literal = 0;
    std::string single_bytes;  // the literals of one byte, not in literal_db
    // For each of them: where the last memchr started, and what it found (npos: nothing after).
    std::vector<std::pair<std::size_t, std::size_t>> single_next;
    std::vector<std::uint32_t> always;      // patterns without a pre-filter: run in every window
    std::vector<Candidate> candidates;      // of the current block, by end
    bool all_candidates = false;            // a scan failed: every pattern in every window
    std::vector<std::string> literal_text;  // by id in literal_db
    bool literal_has_break = false;         // then lines are never skipped (see scan_block)

    std::vector<LogHit> hits;
    std::vector<std::size_t> counts;
    // The last line each pattern matched: lines come in order, so a line seen twice (through the
    // window of the line before it, or the overlap of a sliced long line) is never counted twice.
    std::vector<std::size_t> last_line;
    std::string carry;         // an unfinished line from the previous feed
    std::size_t newlines = 0;  // '\n' before the current block
    std::size_t total_bytes = 0;
    bool ended_without_newline = false;
    std::vector<std::uint32_t> ids;     // reused
    std::vector<re2::StringPiece> sub;  // reused
    // A pattern without assertions (^ $ \b ...) that matched [first, second) of block number
    // last_block: a window holding that match cannot give it a new line (see match_window).
    std::vector<char> context_free;
    std::vector<std::pair<std::size_t, std::size_t>> last_span;
    std::vector<std::uint64_t> last_block;
    std::uint64_t block_number = 0;
    // The literals in the current block, {start, length} by start then length (when known: a
    // block of 4 GiB or more, or a failed scan, falls back to searching for each literal).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> occurrences;
    bool occurrences_known = false;
    std::vector<std::vector<std::uint32_t>> strong_patterns;  // by literal id: patterns it stands for
    std::vector<char> by_literal;                             // by pattern: its literal stands for it
    bool no_cr = false;                                       // the block has no '\r': breaks are '\n' only
    std::size_t scan_size = 0;
    // By pattern: in the regex database as it is (every match end a candidate); the strings it
    // is when it is only plain strings without captures (literal_alternatives), else empty.
    std::vector<char> exact_regex;
    std::vector<std::vector<std::string>> exact_strings;
    // Where RE2's match in block[w_begin, w_end) starts, for a pattern of exact_strings: at the
    // leftmost of its strings lying wholly in the window (their ends are its candidates there).
    // False when there is none.
    bool leftmost_string(std::string_view block, std::uint32_t pattern, std::size_t w_begin, std::size_t w_end, std::size_t& m_begin,
                         std::size_t& m_end) const;  // the bytes of the block scanned now, padding not counted

    // The literal database and the scratch space, with the widened regexes' database compiled.
    Expected<void> compile(RegexDatabase regexes);
    // Scans the carry: hits starting in carry[0, scan_end), the rest is look-ahead. The padding
    // goes after the carry's bytes for the time of the scan (vectorscan_padding.hpp).
    void scan_carry(std::size_t scan_end);
    // block[size, size + kScanPadding) must be padding: Vectorscan scans that too.
    void find_candidates(std::string_view block);
    // The first literal starting in block[pos, limit) and ending there too (leftmost, then
    // shortest: what an RE2 alternation of the sorted literals finds): {start, length}, or
    // {npos, 0}.
    std::pair<std::size_t, std::size_t> next_literal(std::string_view block, std::size_t pos, std::size_t limit);
    std::pair<std::size_t, std::size_t> next_literal_slowly(std::string_view block, std::size_t pos, std::size_t limit);
    // Finds hits starting in block[0, scan_end); the rest of block is look-ahead for windows.
    void scan_block(std::string_view block, std::size_t scan_end);
    // Where the line around `at` starts, looking back no further than floor (then floor); where
    // it ends, looking no further than ceiling (then ceiling, or `at` when past it).
    std::size_t line_start(std::string_view block, std::size_t at, std::size_t floor) const {
        if (no_cr) {
            const auto* b = static_cast<const char*>(::memrchr(block.data() + floor, '\n', at - floor));
            return b ? static_cast<std::size_t>(b - block.data()) + 1 : floor;
        }
        while (at > floor && !is_break(block[at - 1])) --at;
        return at;
    }
    std::size_t line_end(std::string_view block, std::size_t at, std::size_t ceiling) const {
        if (at >= ceiling) return at;
        if (no_cr) {
            const auto* b = static_cast<const char*>(std::memchr(block.data() + at, '\n', ceiling - at));
            return b ? static_cast<std::size_t>(b - block.data()) : ceiling;
        }
        while (at < ceiling && !is_break(block[at])) ++at;
        return at;
    }
    void match_window(std::string_view block, std::size_t line_start, std::size_t line_of_start, std::size_t w_begin, std::size_t w_end);
};

Expected<VectorscanLogScanner> VectorscanLogScanner::create(std::vector<LogPattern> patterns, ScanLimits limits) {
    if (patterns.empty()) return fail(Errc::usage, "no patterns to scan for");
    if (const auto& hs = libhs(); !hs.error.empty()) return fail(Errc::io, "Vectorscan cannot be used: " + hs.error);
    auto impl = std::make_unique<Impl>();
    impl->limits = limits;
    impl->limits.max_line = std::max<std::size_t>(limits.max_line, 256);
    // Candidates: a long literal every match contains stands for its pattern; or, where RE2's
    // pre-filter finds longer ones, a set of strings one of which every match contains (say a
    // message's translations, where the catalog's literal is the library name all of them quote);
    // the others are pre-filtered by their own regex, widened.
    std::vector<std::string> widened;
    std::vector<unsigned> widened_ids, widened_flags;
    std::vector<char> unwidened(patterns.size(), 0);  // its widened regex is the regex itself
    impl->by_literal.assign(patterns.size(), 0);
    for (std::size_t i = 0; i < patterns.size(); ++i) {
        const auto& p = patterns[i];
        const bool strong = p.literal.size() >= kStrongLiteral && literal_required(p.regex, p.literal);
        if (auto atoms = required_atoms(p.regex, kStrongLiteral)) {
            const auto shortest =
                std::min_element(atoms->begin(), atoms->end(), [](const auto& a, const auto& b) { return a.size() < b.size(); });
            if (!strong || shortest->size() > p.literal.size()) {
                for (const auto& a : *atoms) {
                    widened.push_back(vectorscan_literal(a));
                    widened_ids.push_back(static_cast<unsigned>(i));
                    widened_flags.push_back(HS_FLAG_CASELESS);
                }
                continue;
            }
        }
        if (strong) {
            impl->by_literal[i] = 1;
            continue;
        }
        if (auto e = superset_expression(p.regex)) {
            unwidened[i] = *e == p.regex;
            widened.push_back(std::move(*e));
            widened_ids.push_back(static_cast<unsigned>(i));
            widened_flags.push_back(0);
        } else {
            impl->always.push_back(static_cast<std::uint32_t>(i));
        }
    }
    const auto options = byte_options();
    for (const auto& p : patterns) {
        if (p.id.empty()) return fail(Errc::parse, "a pattern without an id");
        if (p.literal.empty()) return fail(Errc::parse, "pattern " + p.id + ": empty literal");
        if (!is_ascii(p.literal) || !is_ascii(p.regex)) return fail(Errc::parse, "pattern " + p.id + ": only ASCII text is allowed");
        auto re = std::make_unique<RE2>(p.regex, options);
        if (!re->ok()) return fail(Errc::parse, "pattern " + p.id + ": " + re->error());
        impl->regexes.push_back(std::move(re));
    }
    impl->patterns = std::move(patterns);
    if (auto ok = impl->compile(compile_widened(std::move(widened), std::move(widened_ids), std::move(widened_flags))); !ok)
        return Unexpected<Error>(ok.error());
    impl->counts.assign(impl->patterns.size(), 0);
    impl->last_line.assign(impl->patterns.size(), 0);
    for (const auto& p : impl->patterns) impl->context_free.push_back(has_assertions(p.regex) ? 0 : 1);
    impl->last_span.assign(impl->patterns.size(), {0, 0});
    impl->last_block.assign(impl->patterns.size(), 0);
    // A pattern that is a few plain strings, its regex in the regex database as it is, without
    // captures: its candidates are exactly where those strings end, and RE2 is not needed.
    impl->exact_strings.assign(impl->patterns.size(), {});
    for (std::size_t i = 0; i < impl->patterns.size(); ++i) {
        if (!unwidened[i] || !impl->exact_regex[i] || impl->regexes[i]->NumberOfCapturingGroups() != 0) continue;
        if (auto strings = literal_alternatives(impl->patterns[i].regex)) impl->exact_strings[i] = std::move(*strings);
    }
    return VectorscanLogScanner(std::move(impl));
}

Expected<void> VectorscanLogScanner::Impl::compile(RegexDatabase regexes) {
    // Every literal once, for finding the lines to look at.
    const std::set<std::string> unique = [&] {
        std::set<std::string> s;
        for (const auto& p : patterns) s.insert(p.literal);
        return s;
    }();
    literal_text.assign(unique.begin(), unique.end());
    std::vector<const char*> expressions;
    std::vector<std::size_t> lengths;
    std::vector<unsigned> flags, ids;
    for (std::size_t i = 0; i < literal_text.size(); ++i) {
        const auto& l = literal_text[i];
        literal_length.push_back(l.size());
        longest_literal = std::max(longest_literal, l.size());
        literal_has_break = literal_has_break || l.find_first_of("\r\n") != std::string::npos;
        if (l.size() == 1) {  // a byte like ':' is on most lines: memchr finds it when asked
            single_bytes += l;
            continue;
        }
        expressions.push_back(l.data());
        lengths.push_back(l.size());
        flags.push_back(0);
        ids.push_back(static_cast<unsigned>(i));
    }
    hs_database_t* db = nullptr;
    hs_compile_error_t* error = nullptr;
    if (!expressions.empty()) {
        if (libhs().compile_lit_multi(expressions.data(), flags.data(), ids.data(), lengths.data(),
                                      static_cast<unsigned>(expressions.size()), HS_MODE_BLOCK, nullptr, &db, &error) != HS_SUCCESS)
            return fail(Errc::parse, "literals: " + compile_error_text(error));
        literal_db.reset(db);
    }

    // The patterns a long literal stands for (create() chose them), by literal.
    strong_patterns.assign(literal_text.size(), {});
    for (std::size_t i = 0; i < patterns.size(); ++i) {
        const auto& p = patterns[i];
        if (!by_literal[i]) continue;
        const auto at = std::lower_bound(literal_text.begin(), literal_text.end(), p.literal) - literal_text.begin();
        strong_patterns[static_cast<std::size_t>(at)].push_back(static_cast<std::uint32_t>(i));
    }
    regex_db = std::move(regexes.db);
    always.insert(always.end(), regexes.refused.begin(), regexes.refused.end());
    exact_regex.assign(patterns.size(), 0);
    for (const auto id : regexes.exact) exact_regex[id] = 1;
    std::sort(always.begin(), always.end());

    hs_scratch_t* raw = nullptr;
    for (const auto* d : {literal_db.get(), regex_db.get()}) {
        if (!d) continue;
        if (const auto rc = libhs().alloc_scratch(d, &raw); rc != HS_SUCCESS) {
            if (raw) libhs().free_scratch(raw);
            return fail(Errc::io, "cannot allocate Vectorscan scratch space (error " + std::to_string(rc) + ")");
        }
    }
    scratch.reset(raw);
    return {};
}

VectorscanLogScanner::VectorscanLogScanner(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
VectorscanLogScanner::VectorscanLogScanner(VectorscanLogScanner&&) noexcept = default;
VectorscanLogScanner& VectorscanLogScanner::operator=(VectorscanLogScanner&&) noexcept = default;
VectorscanLogScanner::~VectorscanLogScanner() = default;

const std::vector<LogHit>& VectorscanLogScanner::hits() const { return m_impl->hits; }
std::size_t VectorscanLogScanner::match_count(std::size_t index) const { return index < m_impl->counts.size() ? m_impl->counts[index] : 0; }
const std::vector<LogPattern>& VectorscanLogScanner::patterns() const { return m_impl->patterns; }
std::size_t VectorscanLogScanner::lines() const { return m_impl->newlines + (m_impl->ended_without_newline ? 1 : 0); }
std::size_t VectorscanLogScanner::bytes() const { return m_impl->total_bytes; }

void VectorscanLogScanner::feed(std::string_view bytes) {
    auto& m = *m_impl;
    m.total_bytes += bytes.size();
    const std::size_t old = m.carry.size();
    m.carry.reserve(old + bytes.size() + kScanPadding);  // room for the padding: no copy of the block to add it
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
            m.scan_carry(before);
            m.carry.erase(0, before);
        }
    }
    // An overlong line grows in the carry: scan it in slices.
    if (m.carry.size() > kMaxCarry) {
        const std::size_t cut = m.carry.size() - kOverlap;
        m.scan_carry(cut);
        m.carry.erase(0, cut);
    }
}

void VectorscanLogScanner::finish() {
    auto& m = *m_impl;
    if (!m.carry.empty()) {
        m.ended_without_newline = m.carry.back() != '\n';
        m.scan_carry(m.carry.size());
        m.carry.clear();
    }
}

void VectorscanLogScanner::reset() {
    auto& m = *m_impl;
    m.hits.clear();
    m.counts.assign(m.patterns.size(), 0);
    m.last_line.assign(m.patterns.size(), 0);
    m.carry.clear();
    m.newlines = 0;
    m.total_bytes = 0;
    m.ended_without_newline = false;
}

void VectorscanLogScanner::Impl::scan_carry(std::size_t scan_end) {
    const std::size_t size = carry.size();
    carry.append(kScanPadding, kPaddingByte);
    scan_block(std::string_view(carry.data(), size), scan_end);
    carry.resize(size);
}

void VectorscanLogScanner::Impl::find_candidates(std::string_view block) {
    candidates.clear();
    occurrences.clear();
    no_cr = std::memchr(block.data(), '\r', block.size()) == nullptr;
    const bool fits = block.size() < std::numeric_limits<std::uint32_t>::max() - kScanPadding;
    occurrences_known = fits;
    all_candidates = !fits;
    if (!fits) return;
    // Matches ending in the padding are not the data's: none of a literal (no literal holds the
    // padding byte), some of a widened regex (whose matches in the data are reported as well).
    const auto on_literal = [](unsigned id, unsigned long long, unsigned long long to, unsigned, void* context) -> int {
        auto& m = *static_cast<Impl*>(context);
        if (to > m.scan_size) return 0;
        const std::size_t length = m.literal_length[id];
        m.occurrences.emplace_back(static_cast<std::uint32_t>(to - length), static_cast<std::uint32_t>(length));
        for (const auto pattern : m.strong_patterns[id]) m.candidates.push_back({static_cast<std::size_t>(to), pattern});
        return 0;
    };
    const auto on_regex = [](unsigned id, unsigned long long, unsigned long long to, unsigned, void* context) -> int {
        auto& m = *static_cast<Impl*>(context);
        if (to <= m.scan_size) m.candidates.push_back({static_cast<std::size_t>(to), static_cast<std::uint32_t>(id)});
        return 0;
    };
    assert(std::string_view(block.data() + block.size(), kScanPadding).find_first_not_of(kPaddingByte) == npos);
    scan_size = block.size();
    const auto size = static_cast<unsigned>(block.size() + kScanPadding);
    single_next.assign(single_bytes.size(), {npos, npos});
    if (literal_db && libhs().scan(literal_db.get(), block.data(), size, 0, scratch.get(), on_literal, this) != HS_SUCCESS)
        occurrences_known = false, all_candidates = true;
    if (regex_db && !all_candidates && libhs().scan(regex_db.get(), block.data(), size, 0, scratch.get(), on_regex, this) != HS_SUCCESS)
        all_candidates = true;
    if (!std::is_sorted(occurrences.begin(), occurrences.end())) std::sort(occurrences.begin(), occurrences.end());
    if (!std::is_sorted(candidates.begin(), candidates.end())) std::sort(candidates.begin(), candidates.end());
}

std::pair<std::size_t, std::size_t> VectorscanLogScanner::Impl::next_literal(std::string_view block, std::size_t pos, std::size_t limit) {
    if (!occurrences_known) return next_literal_slowly(block, pos, limit);
    // The shortest comes first at each start; one that ends past the limit is skipped.
    std::pair<std::size_t, std::size_t> best{npos, 0};
    for (auto it = std::lower_bound(occurrences.begin(), occurrences.end(),
                                    std::pair<std::uint32_t, std::uint32_t>{static_cast<std::uint32_t>(pos), 0});
         it != occurrences.end() && it->first < limit; ++it) {
        if (std::size_t{it->first} + it->second <= limit) {
            best = {it->first, it->second};
            break;
        }
    }
    for (std::size_t k = 0; k < single_bytes.size(); ++k) {
        auto& [from, at] = single_next[k];
        if (pos < from || (at != npos && at < pos)) {  // the last answer is not the first from pos
            const void* p = std::memchr(block.data() + pos, single_bytes[k], block.size() - pos);
            from = pos;
            at = p ? static_cast<std::size_t>(static_cast<const char*>(p) - block.data()) : npos;
        }
        if (at != npos && at < limit && (at < best.first || (at == best.first && best.second > 1))) best = {at, 1};
    }
    return best;
}

std::pair<std::size_t, std::size_t> VectorscanLogScanner::Impl::next_literal_slowly(std::string_view block, std::size_t pos,
                                                                                    std::size_t limit) {
    const std::string_view text = block.substr(0, limit);
    std::pair<std::size_t, std::size_t> best{npos, 0};
    for (const auto& l : literal_text)
        if (const auto at = text.find(l, pos); at != npos && (at < best.first || (at == best.first && l.size() < best.second)))
            best = {at, l.size()};
    return best;
}

void VectorscanLogScanner::Impl::scan_block(std::string_view block, std::size_t scan_end) {
    const std::size_t n = block.size();
    const std::size_t max_line = limits.max_line;
    find_candidates(block);
    ++block_number;
    const bool may_skip = always.empty() && !all_candidates && !literal_has_break;
    std::size_t pos = 0;
    std::size_t counted = 0;  // '\n' in block[0, counted) are in `newlines`
    std::size_t floor = 0;    // no window from here on starts before this
    std::size_t next = 0;     // the first candidate at or after floor
    while (pos < scan_end) {
        if (may_skip) {
            // Windows start at their line's start (found by looking back at most max_line), and
            // after a line break at pos none starts before it.
            floor = std::max(floor, (pos == 0 || is_break(block[pos - 1])) ? pos : (pos > max_line ? pos - max_line : 0));
            while (next < candidates.size() && candidates[next].end < floor) ++next;
            if (next == candidates.size()) break;  // no window left can match anything
            // A window ends at most at the line break after the one ending its literal's line ("\r\n"
            // is one break): no line before the second break back from the candidate reaches it.
            const std::size_t e = candidates[next].end;
            if (e <= pos) {
                // the candidate is behind (inside an overlong line's windows): nothing to skip
            } else if (no_cr) {
                const char* base = block.data() + pos;
                if (const auto* b1 = static_cast<const char*>(::memrchr(base, '\n', e - pos)))
                    if (const auto* b2 = static_cast<const char*>(::memrchr(base, '\n', static_cast<std::size_t>(b1 - base))))
                        pos = static_cast<std::size_t>(b2 - block.data()) + 1;
            } else {
                std::size_t i = e, breaks = 0;
                while (i > pos) {
                    --i;
                    if (!is_break(block[i])) continue;
                    const std::size_t last = i;
                    if (block[i] == '\n' && i > pos && block[i - 1] == '\r') --i;
                    if (++breaks == 2) {
                        pos = last + 1;
                        break;
                    }
                }
            }
        }
        const auto [hit, length] = next_literal(block, pos, scan_end);
        if (hit == npos) break;
        // The line around the hit, looking no further than one max_line each way.
        std::size_t start = hit;
        const std::size_t back_floor = hit > max_line ? hit - max_line : 0;
        start = line_start(block, start, back_floor);
        const bool start_known = start == 0 || is_break(block[start - 1]);
        std::size_t end = hit + length;
        const std::size_t fwd_ceiling = std::min(n, hit + max_line);
        end = line_end(block, end, fwd_ceiling);
        const bool end_known = end == n || is_break(block[end]);

        std::size_t w_begin = start, w_end = end;
        if (!start_known || !end_known || end - start > max_line) {
            w_begin = std::max(start, hit > max_line / 4 ? hit - max_line / 4 : 0);
            w_end = std::min(end, w_begin + max_line);
        } else {
            // Messages wrap: the next line takes part when the two fit in one window.
            std::size_t next_line = end;
            if (next_line < n && block[next_line] == '\r' && next_line + 1 < n && block[next_line + 1] == '\n') ++next_line;
            if (next_line < n) {
                const std::size_t next_end = line_end(block, next_line + 1, std::min(n, start + max_line + 1));
                if (next_end - start <= max_line) w_end = next_end;
            }
        }
        const std::size_t count_to = std::max(counted, start);
        newlines += count_newlines(block.substr(counted, count_to - counted));
        counted = count_to;
        match_window(block, start, newlines, w_begin, w_end);
        // Continue after this line; inside an overlong line, after this window.
        pos = (end_known && w_end >= end) ? end + 1 : std::max(w_end, hit + 1);
    }
    if (counted < scan_end) newlines += count_newlines(block.substr(counted, scan_end - counted));
}

void VectorscanLogScanner::Impl::match_window(std::string_view block, std::size_t line_start, std::size_t line_of_start,
                                              std::size_t w_begin, std::size_t w_end) {
    // The patterns that may match here: a candidate ends inside the window.
    ids.clear();
    if (all_candidates) {
        for (std::size_t i = 0; i < patterns.size(); ++i) ids.push_back(static_cast<std::uint32_t>(i));
    } else {
        for (auto it = std::lower_bound(candidates.begin(), candidates.end(), Candidate{w_begin, 0});
             it != candidates.end() && it->end <= w_end; ++it)
            ids.push_back(it->pattern);
        ids.insert(ids.end(), always.begin(), always.end());
        if (ids.empty()) return;
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    }
    const std::string_view window = block.substr(w_begin, w_end - w_begin);
    for (const auto id : ids) {
        const auto index = static_cast<std::size_t>(id);
        const RE2& re = *regexes[index];
        // The window holds this pattern's last match (a message seen through the window of the
        // line before): RE2's first match here starts there or earlier, on a line already counted.
        if (context_free[index] && last_block[index] == block_number && last_span[index].first >= w_begin && last_span[index].second <= w_end)
            continue;
        const int groups = re.NumberOfCapturingGroups();
        sub.assign(static_cast<std::size_t>(groups) + 1, re2::StringPiece());
        std::size_t m_begin = 0, m_end = 0;
        if (!all_candidates && !exact_strings[index].empty()) {
            if (!leftmost_string(block, id, w_begin, w_end, m_begin, m_end)) continue;
        } else {
            if (!re.Match(window, 0, window.size(), RE2::UNANCHORED, sub.data(), groups + 1)) continue;
            m_begin = static_cast<std::size_t>(sub[0].data() - block.data());
            m_end = m_begin + sub[0].size();
        }
        const std::size_t line =
            line_of_start + 1 + static_cast<std::size_t>(std::count(block.begin() + line_start, block.begin() + m_begin, '\n'));
        if (line <= last_line[index]) continue;
        last_line[index] = line;
        last_span[index] = {m_begin, m_end};
        last_block[index] = block_number;
        // Hits are kept in the order they are counted: past the limit, keep_hit would only count
        // the pattern's kept hits (all of them, every time) to find it has enough.
        if (++counts[index] <= limits.hits_per_pattern)
            keep_hit(hits, limits.hits_per_pattern, index, line, block, m_begin, m_end, w_begin, w_end, sub.data(), groups);
    }
}

bool VectorscanLogScanner::Impl::leftmost_string(std::string_view block, std::uint32_t pattern, std::size_t w_begin, std::size_t w_end,
                                                 std::size_t& m_begin, std::size_t& m_end) const {
    const auto& strings = exact_strings[pattern];
    bool found = false;
    for (auto it = std::lower_bound(candidates.begin(), candidates.end(), Candidate{w_begin, 0});
         it != candidates.end() && it->end <= w_end; ++it) {
        if (it->pattern != pattern) continue;
        // A match ends here: one (or more) of the strings; the earliest start counts.
        for (const auto& s : strings) {
            if (s.size() > it->end - w_begin || block.compare(it->end - s.size(), s.size(), s) != 0) continue;
            const std::size_t start = it->end - s.size();
            if (!found || start < m_begin) m_begin = start, m_end = it->end, found = true;
        }
    }
    // (RE2 may take another of the strings starting there: the same line, the same hit. Any
    // match serves as the span last_span remembers.)
    return found;
}

}  // namespace cudoctor::formats::detail
