#pragma once
// What the two log scanning engines (log_scan.cpp, log_scan_re2.cpp) share: how lines break, how
// a streamed log is cut into blocks, and how RE2 reads a pattern. One copy, so the engines cannot
// drift apart on what a line is.
#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

#include <re2/re2.h>

#include "formats/log_scan.hpp"

namespace cudoctor::formats::detail {

inline bool is_break(char c) { return c == '\n' || c == '\r'; }

/// One past the last line break in s[floor, size) that is complete, or 0 when there is none. A
/// '\r' that is the last byte is not complete yet: the '\n' of its CRLF may be in the next piece.
inline std::size_t last_complete_break(std::string_view s, std::size_t floor) {
    std::size_t i = s.size();
    if (i > floor && s[i - 1] == '\r') --i;
    while (i > floor && !is_break(s[i - 1])) --i;
    return i > floor ? i : 0;
}

inline bool is_ascii(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

inline RE2::Options byte_options() {
    RE2::Options o;
    o.set_encoding(RE2::Options::EncodingLatin1);  // bytes, not characters: junk cannot derail it
    o.set_log_errors(false);
    o.set_max_mem(64 << 20);
    return o;
}

// Bytes of an overlong line kept when a block ends inside it, so that a message cut by the block
// boundary is still seen whole in the next block.
inline constexpr std::size_t kOverlap = 2048;
// A block without any line break is scanned once it grows past this.
inline constexpr std::size_t kMaxCarry = 1u << 20;

/// Keeps a counted match as a hit, unless pattern `index` already has `limit` kept: its text is
/// the whole line(s) the match block[m_begin, m_end) covers within the window [w_begin, w_end),
/// its groups the captures sub[1..groups].
inline void keep_hit(std::vector<LogHit>& hits, std::size_t limit, std::size_t index, std::size_t line, std::string_view block,
                     std::size_t m_begin, std::size_t m_end, std::size_t w_begin, std::size_t w_end, const re2::StringPiece* sub, int groups) {
    std::size_t kept = 0;
    for (const auto& h : hits) kept += h.pattern == index;
    if (kept >= limit) return;
    std::size_t t_begin = m_begin, t_end = m_end;
    while (t_begin > w_begin && !is_break(block[t_begin - 1])) --t_begin;
    while (t_end < w_end && !is_break(block[t_end])) ++t_end;
    LogHit h;
    h.pattern = index;
    h.line = line;
    h.text = printable_line(block.substr(t_begin, t_end - t_begin));
    for (int g = 1; g <= groups; ++g) h.groups.emplace_back(printable_line(std::string_view(sub[g].data(), sub[g].size()), 200));
    hits.push_back(std::move(h));
}

}  // namespace cudoctor::formats::detail
