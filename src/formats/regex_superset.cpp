#include "formats/regex_superset.hpp"

#include <re2/filtered_re2.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <numeric>

#include "formats/log_scan.hpp"
#include "formats/log_scan_detail.hpp"

namespace cudoctor::formats::detail {

namespace {

constexpr auto npos = std::string_view::npos;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

/// One past the ']' closing the bracket expression that opens at re[i], or npos.
std::size_t class_end(std::string_view re, std::size_t i) {
    std::size_t j = i + 1;
    if (j < re.size() && re[j] == '^') ++j;
    if (j < re.size() && re[j] == ']') ++j;  // a ']' first is a member
    while (j < re.size() && re[j] != ']') {
        if (re[j] == '\\') {
            j += 2;
        } else if (re.substr(j, 2) == "[:") {
            const std::size_t k = re.find(":]", j + 2);
            if (k == npos) return npos;
            j = k + 2;
        } else {
            ++j;
        }
    }
    return j < re.size() ? j + 1 : npos;
}

/// A repeat {n}, {n,} or {n,m} at re[i]: one past its '}' (and its minimum in *min), or npos.
std::size_t repeat_end(std::string_view re, std::size_t i, std::size_t* min = nullptr) {
    std::size_t j = i + 1, n = 0;
    const std::size_t digits = j;
    while (j < re.size() && is_digit(re[j])) n = n * 10 + static_cast<std::size_t>(re[j++] - '0');
    if (j == digits || n > 100000) return npos;
    if (j < re.size() && re[j] == ',') {
        ++j;
        while (j < re.size() && is_digit(re[j])) ++j;
    }
    if (j >= re.size() || re[j] != '}') return npos;
    if (min) *min = n;
    return j + 1;
}

/// The recursive reading behind literal_required. `ok` turns false on syntax it does not follow.
class Reader {
  public:
    Reader(std::string_view re, std::string_view lit) : m_re(re), m_lit(lit) {}

    bool whole() {
        const bool found = alternation();
        return m_ok && m_i == m_re.size() && found;
    }

  private:
    // Branches up to the ')' that closes the group (not consumed) or the end: true when the
    // literal is required in every branch.
    bool alternation() {
        bool all = true;
        while (m_ok) {
            all = branch() && all;
            if (m_i < m_re.size() && m_re[m_i] == '|') {
                ++m_i;
                continue;
            }
            break;
        }
        return m_ok && all;
    }

    bool branch() {
        std::string run;
        bool found = false;
        auto flush = [&] {
            if (run.find(m_lit) != npos) found = true;
            run.clear();
        };
        while (m_ok && m_i < m_re.size() && m_re[m_i] != '|' && m_re[m_i] != ')') {
            enum { plain, other, group } kind = other;
            char ch = 0;
            bool group_required = false;
            const char c = m_re[m_i];
            if (c == '\\') {
                if (m_i + 1 >= m_re.size()) return fail();
                const char e = m_re[m_i + 1];
                if (e == 'x' || e == 'p' || e == 'P' || e == 'Q' || e == 'C' || is_digit(e)) return fail();
                if (is_alnum(e)) {
                    kind = other;  // \d \w \s \b \n ...: not one plain character
                } else {
                    kind = plain;
                    ch = e;
                }
                m_i += 2;
            } else if (c == '[') {
                const std::size_t j = class_end(m_re, m_i);
                if (j == npos) return fail();
                m_i = j;
            } else if (c == '(') {
                ++m_i;
                if (m_re.substr(m_i, 2) == "?:") {
                    m_i += 2;
                } else if (m_re.substr(m_i, 3) == "?P<") {
                    const std::size_t j = m_re.find('>', m_i);
                    if (j == npos) return fail();
                    m_i = j + 1;
                } else if (m_i < m_re.size() && m_re[m_i] == '?') {
                    return fail();  // flags such as (?i) change what a plain character matches
                }
                group_required = alternation();
                if (!m_ok || m_i >= m_re.size() || m_re[m_i] != ')') return fail();
                ++m_i;
                kind = group;
            } else if (c == '*' || c == '+' || c == '?') {
                return fail();  // a repeat of nothing: RE2 refuses it anyway
            } else if (c == '.' || c == '^' || c == '$' || c == '{' || c == '}') {
                ++m_i;  // '{' that is not a repeat is a plain '{' for RE2; reading it as other is safe
            } else {
                kind = plain;
                ch = c;
                ++m_i;
            }
            bool repeated = false, optional = false;
            if (m_i < m_re.size()) {
                const char q = m_re[m_i];
                std::size_t min = 0, j = npos;
                if (q == '*' || q == '?') {
                    repeated = optional = true;
                    ++m_i;
                } else if (q == '+') {
                    repeated = true;
                    ++m_i;
                } else if (q == '{' && (j = repeat_end(m_re, m_i, &min)) != npos) {
                    repeated = true;
                    optional = min == 0;
                    m_i = j;
                }
                if (repeated && m_i < m_re.size() && m_re[m_i] == '?') ++m_i;  // lazy
                if (repeated && m_i < m_re.size() && (m_re[m_i] == '*' || m_re[m_i] == '+' || m_re[m_i] == '?')) return fail();
            }
            if (kind == plain && !repeated) {
                run += ch;
            } else {
                flush();
                if (kind == group && group_required && !optional) found = true;
            }
        }
        flush();
        return found;
    }

    bool fail() {
        m_ok = false;
        return false;
    }

    std::string_view m_re, m_lit;
    std::size_t m_i = 0;
    bool m_ok = true;
};

/// superset_expression, noting in *dropped whether an assertion was dropped.
std::optional<std::string> widen(std::string_view re, bool* dropped) {
    std::string out;
    out.reserve(re.size());
    std::size_t i = 0;
    while (i < re.size()) {
        const char c = re[i];
        if (c == '\\') {
            if (i + 1 >= re.size()) return std::nullopt;
            const char e = re[i + 1];
            if (e == 'b' || e == 'B' || e == 'A' || e == 'z') {
                i += 2;  // true at the edge of a window, whatever the text beyond it
                if (dropped) *dropped = true;
                continue;
            }
            if (e == 'p' || e == 'P' || e == 'Q' || e == 'C' || is_digit(e)) return std::nullopt;
            if (e == 'x') {  // \xHH or \x{H...}: copied whole, so its braces are not read as a repeat
                std::size_t j = i + 2;
                if (j < re.size() && re[j] == '{') {
                    j = re.find('}', j);
                    if (j == npos) return std::nullopt;
                    ++j;
                } else {
                    j = std::min(re.size(), j + 2);
                }
                out.append(re.substr(i, j - i));
                i = j;
                continue;
            }
            out.append(re.substr(i, 2));
            i += 2;
        } else if (c == '[') {
            const std::size_t j = class_end(re, i);
            if (j == npos) return std::nullopt;
            out.append(re.substr(i, j - i));
            i = j;
        } else if (c == '^' || c == '$') {
            ++i;  // a window starts and ends where the text does not
            if (dropped) *dropped = true;
        } else if (c == '{') {
            const std::size_t j = repeat_end(re, i);
            if (j != npos) {
                out += '*';  // X{n,m} matches inside X*: superset, and far cheaper to compile
                i = j;
            } else {
                out += "\\{";  // a plain '{' for RE2; escaped so no reading takes it for a repeat
                ++i;
            }
        } else if (c == '}') {
            out += "\\}";
            ++i;
        } else {
            out += c;
            ++i;
        }
    }
    return out;
}

/// literal_alternatives' reading: alternation of concatenations of plain characters and groups.
class Alternatives {
  public:
    explicit Alternatives(std::string_view re) : m_re(re) {}
    std::optional<std::vector<std::string>> whole() {
        auto out = alternation();
        if (!out || m_at != m_re.size()) return std::nullopt;
        for (const auto& s : *out)
            if (s.empty()) return std::nullopt;
        return out;
    }

  private:
    static constexpr std::size_t kMost = 64;
    std::string_view m_re;
    std::size_t m_at = 0;

    std::optional<std::vector<std::string>> alternation() {
        auto out = sequence();
        while (out && m_at < m_re.size() && m_re[m_at] == '|') {
            ++m_at;
            auto more = sequence();
            if (!more || out->size() + more->size() > kMost) return std::nullopt;
            out->insert(out->end(), more->begin(), more->end());
        }
        return out;
    }
    std::optional<std::vector<std::string>> sequence() {
        std::vector<std::string> out{""};
        while (m_at < m_re.size() && m_re[m_at] != '|' && m_re[m_at] != ')') {
            std::vector<std::string> item;
            const char c = m_re[m_at];
            if (m_re.substr(m_at, 3) == "(?:") {
                m_at += 3;
                auto inner = alternation();
                if (!inner || m_at >= m_re.size() || m_re[m_at] != ')') return std::nullopt;
                ++m_at;
                item = std::move(*inner);
            } else if (c == '\\') {  // escaped punctuation only: \d, \x41, \n ... are not plain
                if (m_at + 1 >= m_re.size() || std::isalnum(static_cast<unsigned char>(m_re[m_at + 1]))) return std::nullopt;
                item.emplace_back(1, m_re[m_at + 1]);
                m_at += 2;
            } else if (std::string_view("^$.?*+()[]{}").find(c) != std::string_view::npos || static_cast<unsigned char>(c) >= 0x80 ||
                       c == '\n' || c == '\r') {
                return std::nullopt;
            } else {
                item.emplace_back(1, c);
                ++m_at;
            }
            if (out.size() * item.size() > kMost) return std::nullopt;
            std::vector<std::string> joined;
            for (const auto& a : out)
                for (const auto& b : item) joined.push_back(a + b);
            out = std::move(joined);
        }
        return out;
    }
};

}  // namespace

std::optional<std::vector<std::string>> literal_alternatives(std::string_view regex) { return Alternatives(regex).whole(); }

bool literal_required(std::string_view regex, std::string_view literal) {
    if (literal.empty()) return true;
    return Reader(regex, literal).whole();
}

std::optional<std::string> superset_expression(std::string_view re) { return widen(re, nullptr); }

std::optional<std::vector<std::string>> required_atoms(std::string_view regex, std::size_t min_length) {
    re2::FilteredRE2 filter(static_cast<int>(min_length));
    int id = 0;
    if (filter.Add(re2::StringPiece(regex.data(), regex.size()), byte_options(), &id) != RE2::NoError) return std::nullopt;
    std::vector<std::string> atoms;
    filter.Compile(&atoms);
    // The tree is monotone (AND and OR of atoms): `present` passes it, or no superset of it can.
    std::vector<int> passed;
    const auto passes = [&](const std::vector<int>& present) {
        filter.AllPotentials(present, &passed);
        return !passed.empty();
    };
    if (atoms.empty() || passes({})) return std::nullopt;
    // A set S serves when the atoms outside it cannot pass: a match then holds an atom of S.
    std::vector<std::size_t> order(atoms.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return atoms[a].size() < atoms[b].size(); });
    std::vector<char> in(atoms.size(), 1);
    std::vector<int> outside;
    for (const auto a : order) {
        in[a] = 0;
        outside.clear();
        for (std::size_t j = 0; j < atoms.size(); ++j)
            if (!in[j]) outside.push_back(static_cast<int>(j));
        if (passes(outside)) in[a] = 1;
    }
    std::vector<std::string> out;
    for (std::size_t j = 0; j < atoms.size(); ++j)
        if (in[j]) {
            if (atoms[j].size() < min_length) return std::nullopt;  // (the tree keeps only longer ones)
            out.push_back(std::move(atoms[j]));
        }
    return out;
}

std::string vectorscan_literal(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(s.size() * 4);
    for (const char c : s) {
        if (is_alnum(c)) {
            out += c;
            continue;
        }
        const auto b = static_cast<unsigned char>(c);
        out += "\\x";
        out += kHex[b >> 4];
        out += kHex[b & 15];
    }
    return out;
}

bool has_assertions(std::string_view regex) {
    bool dropped = false;
    return !widen(regex, &dropped) || dropped;
}

}  // namespace cudoctor::formats::detail

namespace cudoctor::formats {

std::size_t capturing_groups(std::string_view re) {
    std::size_t groups = 0;
    for (std::size_t i = 0; i < re.size(); ++i) {
        const char c = re[i];
        if (c == '\\') {
            if (i + 1 < re.size() && re[i + 1] == 'Q') {  // \Q...\E: plain text up to \E or the end
                const auto end = re.find("\\E", i + 2);
                if (end == std::string_view::npos) break;
                i = end + 1;
            } else {
                ++i;  // the escaped character, whatever it is
            }
        } else if (c == '[') {
            // A class: "]" right after "[" or "[^" is a member; "[:alpha:]" inside is one item.
            std::size_t j = i + 1;
            if (j < re.size() && re[j] == '^') ++j;
            if (j < re.size() && re[j] == ']') ++j;
            for (; j < re.size() && re[j] != ']'; ++j) {
                if (re[j] == '\\') ++j;
                else if (re[j] == '[' && j + 1 < re.size() && re[j + 1] == ':')
                    if (const auto close = re.find(":]", j + 2); close != std::string_view::npos) j = close + 1;
            }
            i = j;
        } else if (c == '(') {
            if (i + 1 >= re.size() || re[i + 1] != '?' || re.substr(i + 1, 3) == "?P<") ++groups;
        }
    }
    return groups;
}

}  // namespace cudoctor::formats
