#include "formats/python_literal.hpp"

#include "common/text.hpp"
#include "formats/line_reader.hpp"

namespace cudoctor::formats::detail {

bool is_python_ident_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

std::optional<std::string> read_python_string(std::string_view s, std::size_t& consumed, bool allow_triple) {
    std::size_t i = 0;
    bool raw = false;
    while (i < s.size() && i < 2 && std::string_view("rRuUbB").find(s[i]) != std::string_view::npos) {
        raw = raw || s[i] == 'r' || s[i] == 'R';
        ++i;
    }
    if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return std::nullopt;
    const char quote = s[i];
    const bool triple = s.size() - i >= 3 && s[i + 1] == quote && s[i + 2] == quote;
    if (triple && !allow_triple) return std::nullopt;
    i += triple ? 3 : 1;
    std::string out;
    while (i < s.size()) {
        const char c = s[i];
        if (c == quote && (!triple || (s.size() - i >= 3 && s[i + 1] == quote && s[i + 2] == quote))) {
            consumed = i + (triple ? 3 : 1);
            return out;
        }
        if (!triple && c == '\n') return std::nullopt;
        if (c == '\\' && i + 1 < s.size()) {
            const char e = s[i + 1];
            i += 2;
            if (raw) {
                out += c;
                out += e;
                continue;
            }
            switch (e) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case '\\':
                case '\'':
                case '"': out += e; break;
                case '\n': break;  // a line continuation inside the literal
                default:
                    out += c;
                    out += e;
                    break;
            }
            continue;
        }
        out += c;
        ++i;
    }
    return std::nullopt;
}

std::optional<std::string_view> find_top_level_assignment(std::string_view text, std::string_view name, std::size_t from, std::size_t& next) {
    if (name.empty() || from > text.size()) return std::nullopt;
    LineReader reader(text);
    reader.seek(from);
    std::string_view line;
    while (reader.next(line)) {
        if (!line.starts_with(name)) continue;
        auto rest = line.substr(name.size());
        if (!rest.empty() && is_python_ident_char(rest.front())) continue;
        rest = text::trim(rest);
        if (rest.starts_with(':')) {
            // `NAME: Optional[str] = ...`: the annotation ends at the first '='.
            const auto eq = rest.find('=');
            if (eq == std::string_view::npos) continue;
            rest = rest.substr(eq);
        }
        if (!rest.starts_with('=') || rest.starts_with("==")) continue;
        next = reader.position();
        // A view into `text` (never an empty one without a position), so a caller may read a
        // literal that runs on past this line.
        auto start = static_cast<std::size_t>(rest.data() + 1 - text.data());
        const auto end = static_cast<std::size_t>(line.data() + line.size() - text.data());
        while (start < end && (text[start] == ' ' || text[start] == '\t')) ++start;
        auto stop = end;
        while (stop > start && (text[stop - 1] == ' ' || text[stop - 1] == '\t')) --stop;
        return text.substr(start, stop - start);
    }
    return std::nullopt;
}

}  // namespace cudoctor::formats::detail
