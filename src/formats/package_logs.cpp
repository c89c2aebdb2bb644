#include "formats/package_logs.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cstring>

#include "common/text.hpp"
#include "formats/line_reader.hpp"

namespace cudoctor::formats {
namespace {

std::string strip_arch(std::string_view package) { return std::string(package.substr(0, package.find(':'))); }
std::string none_to_empty(std::string_view v) { return v == "<none>" ? std::string() : std::string(v); }

/// "a:amd64 (1.0, 2.0), b:amd64 (3.0, automatic)" → changes; commas inside parentheses belong
/// to the versions.
void parse_change_list(std::string_view action, std::string_view list, std::vector<AptTransaction::Change>& out,
                       const PackageFilter* keep = nullptr) {
    std::size_t i = 0;
    while (i < list.size()) {
        const auto open = list.find('(', i);
        if (open == std::string_view::npos) break;
        const auto close = list.find(')', open);
        if (close == std::string_view::npos) break;
        if (keep) {
            const auto name = text::trim(list.substr(i, open - i));
            if (!(*keep)(name.substr(0, name.find(':')))) {
                i = close + 1;
                while (i < list.size() && (list[i] == ',' || list[i] == ' ')) ++i;
                continue;
            }
        }
        AptTransaction::Change c;
        c.action = text::to_lower(action);
        c.package = strip_arch(text::trim(list.substr(i, open - i)));
        auto versions = text::split(list.substr(open + 1, close - open - 1), ',');
        std::vector<std::string> vs;
        for (auto v : versions) {
            v = text::trim(v);
            if (!v.empty() && v != "automatic") vs.emplace_back(v);
        }
        if (c.action == "upgrade" || c.action == "downgrade") {
            if (!vs.empty()) c.old_version = vs[0];
            if (vs.size() > 1) c.new_version = vs[1];
        } else if (c.action == "remove" || c.action == "purge") {
            if (!vs.empty()) c.old_version = vs[0];
        } else if (!vs.empty()) {
            c.new_version = vs[0];
        }
        if (!c.package.empty()) out.push_back(std::move(c));
        i = close + 1;
        while (i < list.size() && (list[i] == ',' || list[i] == ' ')) ++i;
    }
}

}  // namespace

std::vector<DpkgLogAction> parse_dpkg_log(std::string_view text_data) {
    std::vector<DpkgLogAction> out;
    for (auto line : text::lines(text_data)) {
        auto f = text::fields(line);
        if (f.size() < 6) continue;
        const auto action = f[2];
        if (action != "install" && action != "upgrade" && action != "remove" && action != "purge") continue;
        if (f[0].size() != 10 || f[0][4] != '-') continue;
        out.push_back(
            {std::string(f[0]) + " " + std::string(f[1]), std::string(action), strip_arch(f[3]), none_to_empty(f[4]), none_to_empty(f[5])});
    }
    return out;
}

namespace {

/// The next field of a line as text::fields() splits it (runs of spaces and TABs separate),
/// from `pos` on; empty at the end of the line.
std::string_view next_field(std::string_view line, std::size_t& pos) {
    const char* const data = line.data();
    const std::size_t size = line.size();
    std::size_t i = pos;
    while (i < size && text::is_blank(data[i])) ++i;
    const std::size_t start = i;
    while (i < size && !text::is_blank(data[i])) ++i;
    pos = i;
    return {data + start, i - start};
}

std::vector<AptTransaction> parse_apt_history_impl(std::string_view text_data, const PackageFilter* keep);

}  // namespace

std::vector<DpkgLogAction> parse_dpkg_log(std::string_view text_data, const PackageFilter& keep) {
    std::vector<DpkgLogAction> out;
    detail::LineReader lines(text_data);
    std::string_view line;
    while (lines.next(line)) {
        // dpkg writes "YYYY-MM-DD HH:MM:SS action …": when the first two fields are exactly
        // there, the third starts at byte 20, and most lines ("status", "configure", "trigproc")
        // are out by its first letter.
        if (line.size() > 20 && line[10] == ' ' && line[19] == ' ' && !text::is_blank(line[20])) {
            bool layout = true;
            for (std::size_t i = 0; i < 19 && layout; ++i) layout = i == 10 || !text::is_blank(line[i]);
            const char a = line[20];
            if (layout && a != 'i' && a != 'u' && a != 'r' && a != 'p') continue;
        }
        // As parse_dpkg_log(): at least six fields, an action we keep, a date first; the
        // package is tested before anything is built.
        std::size_t pos = 0;
        const auto date = next_field(line, pos);
        if (date.size() != 10 || date[4] != '-') continue;
        const auto time = next_field(line, pos);
        const auto action = next_field(line, pos);
        if (action != "install" && action != "upgrade" && action != "remove" && action != "purge") continue;
        const auto package = next_field(line, pos);
        const auto old_version = next_field(line, pos);
        const auto new_version = next_field(line, pos);
        if (new_version.empty()) continue;  // fewer than six fields
        if (!keep(package.substr(0, package.find(':')))) continue;
        out.push_back({std::string(date) + " " + std::string(time), std::string(action), strip_arch(package), none_to_empty(old_version),
                       none_to_empty(new_version)});
    }
    return out;
}

namespace {

bool word_at(const char* at, std::span<const std::string_view> words, const char* end) {
    for (const auto w : words)
        if (static_cast<std::size_t>(end - at) >= w.size() && std::memcmp(at, w.data(), w.size()) == 0) return true;
    return false;
}

#if defined(__SSE2__)
/// find_any()'s SSE2 scan for exactly N words of two bytes or more, 16 starts at a time from
/// `i` (left at the first start it did not test): a start is a candidate when it holds a word's
/// first two bytes and the byte where that word ends is its last; a candidate is then compared
/// whole. N fixed so the per-word tests unroll with their constants in registers.
template <std::size_t N>
std::size_t scan_blocks(std::string_view text, std::size_t& i, std::span<const std::string_view> words, std::size_t longest) {
    const char* const data = text.data();
    const char* const end = data + text.size();
    __m128i first[N];
    __m128i second[N];
    __m128i last[N];
    std::size_t tail_at[N];
    for (std::size_t k = 0; k < N; ++k) {
        first[k] = _mm_set1_epi8(words[k][0]);
        second[k] = _mm_set1_epi8(words[k][1]);
        last[k] = _mm_set1_epi8(words[k].back());
        tail_at[k] = words[k].size() - 1;
    }
    // Every load stays inside the text: the last one ends at i + 15 + longest - 1.
    for (; i + 16 + longest <= text.size() + 1; i += 16) {
        const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
        const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i + 1));
        unsigned mask = 0;
#pragma GCC unroll 4
        for (std::size_t k = 0; k < N; ++k) {
            const __m128i tail = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i + tail_at[k]));
            const __m128i head = _mm_and_si128(_mm_cmpeq_epi8(block, first[k]), _mm_cmpeq_epi8(next, second[k]));
            mask |= static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(head, _mm_cmpeq_epi8(tail, last[k]))));
        }
        for (; mask != 0; mask &= mask - 1) {
            const std::size_t at = i + static_cast<std::size_t>(__builtin_ctz(mask));
            if (word_at(data + at, words, end)) return at;
        }
    }
    return std::string_view::npos;
}
#endif

/// Where the first of `words` (none empty) occurs in `text` at or after `from`; npos when none
/// does. One pass for all words (memmem walks a megabyte byte by byte, once per word): SSE2
/// blocks while they fit (scan_blocks; with a word's first and last byte alone, "c..a" and
/// "n....a" were candidates a thousand times in a dpkg.log), then byte by byte.
std::size_t find_any(std::string_view text, std::size_t from, std::span<const std::string_view> words) {
    const char* const data = text.data();
    const char* const end = data + text.size();
    std::size_t i = from;
#if defined(__SSE2__)
    std::size_t longest = 0;
    std::size_t shortest = ~std::size_t{0};
    for (const auto w : words) {
        longest = std::max(longest, w.size());
        shortest = std::min(shortest, w.size());
    }
    if (shortest >= 2) {
        std::size_t at = std::string_view::npos;
        switch (words.size()) {
            case 1: at = scan_blocks<1>(text, i, words, longest); break;
            case 2: at = scan_blocks<2>(text, i, words, longest); break;
            case 3: at = scan_blocks<3>(text, i, words, longest); break;
            case 4: at = scan_blocks<4>(text, i, words, longest); break;
            default: break;  // more words: byte by byte
        }
        if (at != std::string_view::npos) return at;
    }
#endif
    for (; i < text.size(); ++i)
        if (word_at(data + i, words, end)) return i;
    return std::string_view::npos;
}

bool any_empty(std::span<const std::string_view> words) {
    return std::any_of(words.begin(), words.end(), [](std::string_view w) { return w.empty(); });
}

}  // namespace

bool holds_any(std::string_view text, std::span<const std::string_view> words) {
    return any_empty(words) || find_any(text, 0, words) != std::string_view::npos;
}

std::string lines_holding(std::string_view text, std::span<const std::string_view> words) {
    if (any_empty(words)) return std::string(text);
    std::string out;
    for (std::size_t hit = find_any(text, 0, words); hit != std::string_view::npos;) {
        const std::size_t newline_before = hit == 0 ? std::string_view::npos : text.rfind('\n', hit - 1);
        const std::size_t start = newline_before == std::string_view::npos ? 0 : newline_before + 1;
        const std::size_t newline = text.find('\n', hit);
        const std::size_t end = newline == std::string_view::npos ? text.size() : newline + 1;
        out.append(text.substr(start, end - start));
        hit = find_any(text, end, words);
    }
    return out;
}

std::vector<AptTransaction> parse_apt_history(std::string_view text_data) { return parse_apt_history_impl(text_data, nullptr); }
std::vector<AptTransaction> parse_apt_history(std::string_view text_data, const PackageFilter& keep) {
    return parse_apt_history_impl(text_data, &keep);
}

namespace {

std::vector<AptTransaction> parse_apt_history_impl(std::string_view text_data, const PackageFilter* keep) {
    std::vector<AptTransaction> out;
    AptTransaction current;
    bool open = false;
    auto flush = [&] {
        if (open) out.push_back(std::move(current));
        current = AptTransaction{};
        open = false;
    };
    for (auto line : text::lines(text_data)) {
        if (text::trim(line).empty()) {
            flush();
            continue;
        }
        const auto colon = line.find(": ");
        if (colon == std::string_view::npos) continue;
        const auto key = line.substr(0, colon);
        const auto value = text::trim(line.substr(colon + 2));
        if (key == "Start-Date") {
            flush();
            current.start = std::string(value);
            open = true;
        } else if (!open) {
            continue;
        } else if (key == "Commandline") {
            current.commandline = std::string(value);
        } else if (key == "Requested-By") {
            current.requested_by = std::string(value);
        } else if (key == "Install" || key == "Upgrade" || key == "Remove" || key == "Purge" || key == "Downgrade" || key == "Reinstall") {
            parse_change_list(key, value, current.changes, keep);
        }
    }
    flush();
    return out;
}

}  // namespace

}  // namespace cudoctor::formats
