#include "common/text.hpp"

#include <algorithm>

namespace cudoctor::text {

std::string_view trim(std::string_view s) {
    const char* ws = " \t\r\n\v\f";
    const auto b = s.find_first_not_of(ws);
    if (b == std::string_view::npos) return {};
    const auto e = s.find_last_not_of(ws);
    return s.substr(b, e - b + 1);
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.starts_with(prefix); }
bool ends_with(std::string_view s, std::string_view suffix) { return s.ends_with(suffix); }
bool contains(std::string_view s, std::string_view needle) { return s.find(needle) != std::string_view::npos; }

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (true) {
        const auto pos = s.find(sep, start);
        if (pos == std::string_view::npos) {
            out.push_back(s.substr(start));
            return out;
        }
        out.push_back(s.substr(start, pos - start));
        start = pos + 1;
    }
}

std::vector<std::string_view> lines(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (start < s.size()) {
        auto pos = s.find('\n', start);
        if (pos == std::string_view::npos) pos = s.size();
        auto line = s.substr(start, pos - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        out.push_back(line);
        start = pos + 1;
    }
    return out;
}

std::vector<std::string_view> fields(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && is_blank(s[i])) ++i;
        const std::size_t start = i;
        while (i < s.size() && !is_blank(s[i])) ++i;
        if (i > start) out.push_back(s.substr(start, i - start));
    }
    return out;
}

std::string to_lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto u = static_cast<unsigned char>(s[i]);
    const std::size_t len = u < 0x80 ? 1 : u >= 0xf0 && u < 0xf5 ? 4 : u >= 0xe0 && u < 0xf0 ? 3 : u >= 0xc2 && u < 0xe0 ? 2 : 0;
    if (len == 0 || i + len > s.size()) return 0;
    auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    for (std::size_t k = 1; k < len; ++k)
        if ((at(k) & 0xc0) != 0x80) return 0;
    if (len == 3 && u == 0xe0 && at(1) < 0xa0) return 0;   // overlong
    if (len == 3 && u == 0xed && at(1) >= 0xa0) return 0;  // surrogates
    if (len == 4 && u == 0xf0 && at(1) < 0x90) return 0;   // overlong
    if (len == 4 && u == 0xf4 && at(1) >= 0x90) return 0;  // past U+10FFFF
    return len;
}

bool terminal_refuses(std::string_view c) {
    auto at = [&](std::size_t k) { return static_cast<unsigned char>(c[k]); };
    if (c.size() == 2) return at(0) == 0xc2 && at(1) < 0xa0;
    if (c.size() != 3 || at(0) != 0xe2) return false;
    return (at(1) == 0x80 && at(2) >= 0xaa && at(2) <= 0xae) || (at(1) == 0x81 && at(2) >= 0xa6 && at(2) <= 0xa9);
}

// The cut is at `max` bytes of output, never inside a character, then marked with "…".
std::string printable(std::string_view s, std::size_t max) {
    std::string out;
    std::size_t i = 0;
    const std::size_t end = std::min(s.size(), max);
    while (i < end) {
        const auto u = static_cast<unsigned char>(s[i]);
        if (u < 0x80) {
            out += (u < 0x20 || u == 0x7f) ? '?' : static_cast<char>(u);
            ++i;
            continue;
        }
        // Keep well-formed UTF-8 (…, ≤, names in other scripts); one '?' per invalid byte, one
        // per refused character.
        const std::size_t len = utf8_length(s, i);
        if (len && i + len > end) break;  // a character that would cross the cut goes with it
        const auto character = s.substr(i, std::max<std::size_t>(len, 1));
        if (len == 0 || terminal_refuses(character)) out += '?';
        else out.append(character);
        i += character.size();
    }
    if (s.size() > max) out += "…";
    return out;
}

std::string shell_quote(std::string_view word) {
    if (!word.empty() && word.find_first_of(" \t\n'\"$`\\!&;|<>()*?[]{}~#") == std::string_view::npos) return std::string(word);
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string_view("'\\''") : std::string_view(&c, 1);
    return out + "'";
}

}  // namespace cudoctor::text
