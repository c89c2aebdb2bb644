#include "formats/shell_rc.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "common/text.hpp"

namespace cudoctor::formats {
namespace {

bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool ident_char(char c) { return ident_start(c) || text::is_digit(c); }

/// Printable ASCII and TAB only: a line with anything else is not one this reader understands.
bool plain_ascii(std::string_view line) {
    return std::all_of(line.begin(), line.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return c == '\t' || (u >= 0x20 && u < 0x7f);
    });
}

/// What one line does to the nesting of compound commands, read from its unquoted words.
struct LineShape {
    int opens = 0;
    int closes = 0;
    char open_quote = 0;  ///< a quote left open at the end of the line (a string that goes on)
    std::string heredoc;  ///< the delimiter of a here-document the line starts ("" when none)
};

LineShape shape_of(std::string_view line) {
    static constexpr std::array<std::string_view, 7> kOpen = {"if", "case", "for", "while", "until", "select", "{"};
    static constexpr std::array<std::string_view, 4> kClose = {"fi", "esac", "done", "}"};
    LineShape shape;
    std::string word;
    const auto end_word = [&] {
        if (std::find(kOpen.begin(), kOpen.end(), word) != kOpen.end()) ++shape.opens;
        if (std::find(kClose.begin(), kClose.end(), word) != kClose.end()) ++shape.closes;
        word.clear();
    };
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == '\'' || c == '"') {
            const auto close = line.find(c, i + 1);
            if (close == std::string_view::npos) {
                shape.open_quote = c;
                break;
            }
            word += "\"\"";  // a quoted word is never a keyword
            i = close;
        } else if (c == '\\') {
            ++i;
            word += '\\';
        } else if (c == '#' && word.empty()) {
            break;
        } else if (c == '<' && line.substr(i).starts_with("<<<")) {  // a here-string: one word, on this line
            end_word();
            i += 2;
        } else if (c == '<' && line.substr(i).starts_with("<<")) {
            // A here-document: its body lines are text for a command, not the shell's own lines.
            std::size_t k = i + 2;
            if (k < line.size() && line[k] == '-') ++k;
            while (k < line.size() && text::is_blank(line[k])) ++k;
            std::string delimiter;
            for (; k < line.size() && !text::is_blank(line[k]) && std::string_view(";&|<>()").find(line[k]) == std::string_view::npos; ++k)
                if (line[k] != '\'' && line[k] != '"' && line[k] != '\\') delimiter += line[k];
            shape.heredoc = delimiter.empty() ? std::string("\n") : delimiter;  // "\n" never matches: the rest is skipped
            end_word();
            i = k - 1;
        } else if (c == ' ' || c == '\t' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')') {
            end_word();
        } else {
            word += c;
        }
    }
    end_word();
    return shape;
}

/// `$HOME` / `${HOME}` at text[at] ('$'): the length of the reference, or 0.
std::size_t home_reference(std::string_view text, std::size_t at) {
    const auto rest = text.substr(at);
    if (rest.starts_with("${HOME}")) return 7;
    if (rest.starts_with("$HOME") && (rest.size() == 5 || !ident_char(rest[5]))) return 5;
    return 0;
}

bool refers_to(std::string_view value, std::string_view name) {
    for (std::size_t at = value.find('$'); at != std::string_view::npos; at = value.find('$', at + 1)) {
        auto rest = value.substr(at + 1);
        const bool braced = rest.starts_with('{');
        if (braced) rest.remove_prefix(1);
        if (!rest.starts_with(name)) continue;
        rest.remove_prefix(name.size());
        if (braced ? (rest.starts_with('}') || rest.starts_with(':') || rest.starts_with('-') || rest.starts_with('+'))
                   : (rest.empty() || !ident_char(rest[0])))
            return true;
    }
    return false;
}

/// The value of an assignment starting at line[at] (just past '='), or nullopt when the line is
/// more than one plain assignment or holds what this reader does not evaluate.
std::optional<std::string> read_value(std::string_view line, std::size_t at, std::string_view home) {
    std::string value;
    std::size_t i = at;
    const auto dollar = [&](std::string_view text, std::size_t& k) -> bool {
        if (k + 1 < text.size() && text[k + 1] == '(') return false;  // $( … ): a command
        if (const auto n = home_reference(text, k); n && !home.empty()) {
            value += home;
            k += n;
            return true;
        }
        value += '$';
        ++k;
        return true;
    };
    while (i < line.size()) {
        const char c = line[i];
        if (c == ' ' || c == '\t' || c == ';') break;
        if (c == '\'') {
            const auto close = line.find('\'', i + 1);
            if (close == std::string_view::npos) return std::nullopt;
            const auto inner = line.substr(i + 1, close - i - 1);
            if (inner.find('$') != std::string_view::npos) return std::nullopt;  // a literal '$': a mistake or a trick
            value += inner;
            i = close + 1;
        } else if (c == '"') {
            ++i;
            for (;;) {
                if (i >= line.size()) return std::nullopt;
                const char d = line[i];
                if (d == '"') {
                    ++i;
                    break;
                }
                if (d == '`' || d == '\\') return std::nullopt;
                if (d == '$') {
                    if (!dollar(line, i)) return std::nullopt;
                } else {
                    value += d;
                    ++i;
                }
            }
        } else if (c == '$') {
            if (!dollar(line, i)) return std::nullopt;
        } else if (c == '~' && !home.empty() && (i == at || line[i - 1] == ':') &&
                   (i + 1 == line.size() || line[i + 1] == '/' || line[i + 1] == ':' || line[i + 1] == ' ')) {
            value += home;
            ++i;
        } else if (c == '`' || c == '\\' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' || c == ')') {
            return std::nullopt;
        } else {
            value += c;
            ++i;
        }
    }
    // Only blanks, one ';' and a comment may follow.
    auto rest = text::trim(line.substr(i));
    if (rest.starts_with(';')) rest = text::trim(rest.substr(1));
    if (!rest.empty() && !rest.starts_with('#')) return std::nullopt;
    return value;
}

}  // namespace

std::vector<ShellAssignment> parse_shell_rc(std::string_view text, std::string_view home) {
    std::vector<ShellAssignment> out;
    int depth = 0, n = 0;
    char open_quote = 0;
    std::string heredoc;
    bool continued = false;
    for (auto raw : text::lines(text)) {
        ++n;
        const auto line = text::trim(raw);
        if (!heredoc.empty()) {  // inside a here-document, up to its delimiter line
            if (line == heredoc) heredoc.clear();
            continue;
        }
        if (open_quote) {  // inside a string that began on an earlier line
            if (std::count(line.begin(), line.end(), open_quote) % 2 == 1) open_quote = 0;
            continue;
        }
        const bool was_continued = continued;
        continued = line.ends_with('\\');
        if (was_continued || continued) continue;
        if (line.empty() || line.starts_with('#')) continue;
        const auto shape = shape_of(line);
        if (shape.open_quote) {
            open_quote = shape.open_quote;
            continue;
        }
        if (!shape.heredoc.empty()) {
            heredoc = shape.heredoc;
            continue;
        }
        const bool nested = depth > 0 || shape.opens > 0 || shape.closes > 0;
        depth = std::max(0, depth + shape.opens - shape.closes);
        if (nested || !plain_ascii(line)) continue;

        ShellAssignment a;
        std::string_view rest = line;
        if (rest.starts_with("export") && rest.size() > 6 && text::is_blank(rest[6])) {
            a.exported = true;
            rest = text::trim(rest.substr(6));
        }
        std::size_t k = 0;
        if (rest.empty() || !ident_start(rest[0])) continue;
        while (k < rest.size() && ident_char(rest[k])) ++k;
        if (k >= rest.size() || rest[k] != '=') continue;
        a.name = std::string(rest.substr(0, k));
        auto value = read_value(rest, k + 1, home);
        if (!value) continue;
        a.value = std::move(*value);
        a.keeps_old = refers_to(a.value, a.name);
        a.line = n;
        a.text = std::string(line);
        out.push_back(std::move(a));
    }
    return out;
}

std::vector<PathEntry> path_entries(std::string_view value, std::string_view name) {
    const std::string n(name);
    const std::string plain = "$" + n, braced = "${" + n + "}";
    const std::array<std::string, 2> tails = {"${" + n + ":+:${" + n + "}}", "${" + n + ":+:$" + n + "}"};
    const std::array<std::string, 2> heads = {"${" + n + ":+${" + n + "}:}", "${" + n + ":+$" + n + ":}"};
    // Split at the colons outside ${…}.
    std::vector<std::string_view> pieces;
    int braces = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (value[i] == '$' && i + 1 < value.size() && value[i + 1] == '{') {
            ++braces;
            ++i;
        } else if (value[i] == '}' && braces > 0) {
            --braces;
        } else if (value[i] == ':' && braces == 0) {
            pieces.push_back(value.substr(start, i - start));
            start = i + 1;
        }
    }
    pieces.push_back(value.substr(start));
    std::vector<PathEntry> out;
    const auto add_dir = [&](std::string_view d) {
        if (!d.empty()) out.push_back({false, std::string(d)});
    };
    for (auto piece : pieces) {
        if (piece == plain || piece == braced) {
            out.push_back({true, {}});
            continue;
        }
        bool done = false;
        for (const auto& t : tails)
            if (!done && piece.ends_with(t)) {
                add_dir(piece.substr(0, piece.size() - t.size()));
                out.push_back({true, {}});
                done = true;
            }
        for (const auto& h : heads)
            if (!done && piece.starts_with(h)) {
                out.push_back({true, {}});
                add_dir(piece.substr(h.size()));
                done = true;
            }
        if (!done) add_dir(piece);
    }
    return out;
}

}  // namespace cudoctor::formats
