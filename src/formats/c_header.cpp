#include "formats/c_header.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <string>
#include <vector>

#include "common/text.hpp"
#include "formats/line_reader.hpp"

namespace cudoctor::formats {
namespace {

bool is_ident_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }
bool is_c_space(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }

std::string_view skip_space(std::string_view s) {
    while (!s.empty() && is_c_space(s.front())) s.remove_prefix(1);
    return s;
}

/// "#  define" → the text after the directive word, or nullopt when `line` is not that directive.
std::optional<std::string_view> directive(std::string_view line, std::string_view word) {
    line = skip_space(line);
    if (line.empty() || line.front() != '#') return std::nullopt;
    line = skip_space(line.substr(1));
    if (!line.starts_with(word)) return std::nullopt;
    line.remove_prefix(word.size());
    if (!line.empty() && is_ident_char(line.front())) return std::nullopt;
    return line;
}

/// A C integer literal: decimal, 0x hex or 0 octal, u/l suffixes, optional parentheses and minus.
std::optional<long long> parse_int_literal(std::string_view s) {
    s = text::trim(s);
    bool negative = false;
    for (int guard = 0; guard < 8 && !s.empty(); ++guard) {
        if (s.size() >= 2 && s.front() == '(' && s.back() == ')') {
            s = text::trim(s.substr(1, s.size() - 2));
        } else if (s.front() == '-' && !negative) {
            negative = true;
            s = text::trim(s.substr(1));
        } else {
            break;
        }
    }
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s.remove_prefix(2);
    } else if (s.size() > 1 && s[0] == '0') {
        base = 8;
    }
    unsigned long long value = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
    if (ec != std::errc{} || end == s.data()) return std::nullopt;
    const std::string_view suffix(end, static_cast<std::size_t>(s.data() + s.size() - end));
    if (suffix.size() > 3 || suffix.find_first_not_of("uUlL") != std::string_view::npos) return std::nullopt;
    constexpr auto kMax = static_cast<unsigned long long>(std::numeric_limits<long long>::max());
    if (!negative) {
        if (value > kMax) return std::nullopt;
        return static_cast<long long>(value);
    }
    if (value > kMax + 1) return std::nullopt;
    if (value == kMax + 1) return std::numeric_limits<long long>::min();
    return -static_cast<long long>(value);
}

/// A define that must hold an integer in [lo, hi]; `missing` is the error kind when it is absent.
Expected<long long> define_in_range(std::string_view header, std::string_view name, long long lo, long long hi, Errc missing) {
    const auto raw = find_define(header, name);
    if (!raw) return fail(missing, std::string(name) + " is not defined");
    const auto value = parse_int_literal(*raw);
    if (!value) return fail(Errc::parse, std::string(name) + " is not an integer: '" + text::printable(*raw, 40) + "'");
    if (*value < lo || *value > hi) return fail(Errc::parse, std::string(name) + " " + std::to_string(*value) + " is out of range");
    return *value;
}

/// The text with comments blanked (newlines kept) and backslash-newline joins removed, so every
/// line is one logical preprocessor line. A commented-out `// #error` is thereby no check.
std::string strip_comments(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        if (s.compare(i, 2, "/*") == 0) {
            const auto end = s.find("*/", i + 2);
            const auto stop = end == std::string_view::npos ? s.size() : end + 2;
            out += ' ';
            out.append(static_cast<std::size_t>(std::count(s.begin() + static_cast<long>(i), s.begin() + static_cast<long>(stop), '\n')),
                       '\n');
            i = stop;
        } else if (s.compare(i, 2, "//") == 0) {
            const auto end = s.find('\n', i);
            i = end == std::string_view::npos ? s.size() : end;
        } else if (s[i] == '\\' && (s.compare(i + 1, 1, "\n") == 0 || s.compare(i + 1, 2, "\r\n") == 0)) {
            i += s[i + 1] == '\n' ? 2 : 3;
        } else {
            // Up to the next byte that can start a comment or a line continuation, at once: byte
            // by byte, with two compares each, this was most of check's read of host_config.h.
            std::size_t j = i + 1;
            while (j < s.size() && s[j] != '/' && s[j] != '\\') ++j;
            out.append(s.substr(i, j - i));
            i = j;
        }
    }
    return out;
}

/// One `identifier op number` comparison of an #if condition (`__GNUC__ > 15`).
struct Comparison {
    std::string_view name;
    std::string_view op;
    long long value = 0;
};

std::vector<Comparison> comparisons(std::string_view cond) {
    std::vector<Comparison> out;
    std::size_t i = 0;
    while (i < cond.size()) {
        if (!is_ident_char(cond[i]) || (cond[i] >= '0' && cond[i] <= '9')) {
            // A number's digits are skipped here so "x1 > 2" never reads "1" as a name.
            while (i < cond.size() && cond[i] >= '0' && cond[i] <= '9') ++i;
            if (i < cond.size() && !is_ident_char(cond[i])) ++i;
            continue;
        }
        const auto start = i;
        while (i < cond.size() && is_ident_char(cond[i])) ++i;
        const auto name = cond.substr(start, i - start);
        auto j = i;
        while (j < cond.size() && is_c_space(cond[j])) ++j;
        const auto op_start = j;
        while (j < cond.size() && (cond[j] == '<' || cond[j] == '>' || cond[j] == '=' || cond[j] == '!')) ++j;
        const auto op = cond.substr(op_start, j - op_start);
        while (j < cond.size() && is_c_space(cond[j])) ++j;
        long long value = 0;
        const auto [end, ec] = std::from_chars(cond.data() + j, cond.data() + cond.size(), value);
        if (!op.empty() && ec == std::errc{}) {
            out.push_back({name, op, value});
            i = static_cast<std::size_t>(end - cond.data());
        }
    }
    return out;
}

/// The newest accepted value of `name` in a rejecting condition: `name > N` → N, `name >= N` →
/// N-1; the tightest bound when there are several. nullopt when no upper bound is named.
std::optional<int> newest_accepted(const std::vector<Comparison>& cmps, std::string_view name) {
    std::optional<long long> best;
    for (const auto& c : cmps) {
        if (c.name != name) continue;
        long long bound = 0;
        if (c.op == ">") bound = c.value;
        else if (c.op == ">=") bound = c.value - 1;
        else continue;
        if (!best || bound < *best) best = bound;
    }
    if (!best || *best < 0 || *best > 10000) return std::nullopt;
    return static_cast<int>(*best);
}

/// `__GNUC__ == M && __GNUC_MINOR__ > K` for the given M → K (toolkits <= 7.5).
std::optional<int> newest_gcc_minor(const std::vector<Comparison>& cmps, int major) {
    for (std::size_t k = 0; k + 1 < cmps.size(); ++k) {
        if (cmps[k].name != "__GNUC__" || cmps[k].op != "==" || cmps[k].value != major) continue;
        if (cmps[k + 1].name != "__GNUC_MINOR__") continue;
        std::vector<Comparison> minor{cmps[k + 1]};
        return newest_accepted(minor, "__GNUC_MINOR__");
    }
    return std::nullopt;
}

/// Fallback when a condition has an unknown shape: "... later than 15 are not supported" → 15.
std::optional<int> number_after(std::string_view message, std::string_view phrase, int adjust) {
    const auto at = message.find(phrase);
    if (at == std::string_view::npos) return std::nullopt;
    const auto rest = skip_space(message.substr(at + phrase.size()));
    int value = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
    if (ec != std::errc{} || value + adjust < 0 || value > 10000) return std::nullopt;
    return value + adjust;
}

}  // namespace

std::optional<std::string_view> find_define(std::string_view header, std::string_view name) {
    if (name.empty()) return std::nullopt;
    detail::LineReader reader(header);
    std::string_view line;
    while (reader.next(line)) {
        auto rest = directive(line, "define");
        if (!rest || rest->empty() || !is_c_space(rest->front())) continue;
        rest = skip_space(*rest);
        if (!rest->starts_with(name)) continue;
        rest->remove_prefix(name.size());
        // `#define NAMEX` is another macro; `#define NAME(x)` a function-like one, never a value.
        if (!rest->empty() && (is_ident_char(rest->front()) || rest->front() == '(')) continue;
        auto value = *rest;
        value = value.substr(0, std::min(value.find("//"), value.find("/*")));
        return text::trim(value);
    }
    return std::nullopt;
}

std::optional<long long> find_define_int(std::string_view header, std::string_view name) {
    const auto raw = find_define(header, name);
    if (!raw) return std::nullopt;
    return parse_int_literal(*raw);
}

Expected<Version> parse_cuda_h_version(std::string_view cuda_h) {
    const auto value = define_in_range(cuda_h, "CUDA_VERSION", 1000, 999999, Errc::not_found);
    if (!value) return fail(value.error().code, value.error().message);
    const int v = static_cast<int>(*value);
    return Version({v / 1000, (v % 1000) / 10});
}

Expected<Version> parse_cudnn_version_header(std::string_view header) {
    constexpr long long kMaxPart = 9999;
    const auto major = define_in_range(header, "CUDNN_MAJOR", 0, kMaxPart, Errc::not_found);
    if (!major) return fail(major.error().code, major.error().message);
    const auto minor = define_in_range(header, "CUDNN_MINOR", 0, kMaxPart, Errc::parse);
    if (!minor) return fail(minor.error().code, minor.error().message);
    const auto patch = define_in_range(header, "CUDNN_PATCHLEVEL", 0, kMaxPart, Errc::parse);
    if (!patch) return fail(patch.error().code, patch.error().message);
    return Version({static_cast<int>(*major), static_cast<int>(*minor), static_cast<int>(*patch)});
}

HostCompilerLimits parse_host_config(std::string_view text) {
    HostCompilerLimits limits;
    const std::string code = strip_comments(text);
    // Innermost-last conditions of the #if blocks around the current line; an #else branch
    // has no usable condition.
    std::vector<std::string_view> conditions;
    bool gcc_seen = false;
    bool clang_seen = false;
    detail::LineReader reader(code);
    std::string_view line;
    while (reader.next(line)) {
        if (auto c = directive(line, "if")) {
            conditions.push_back(text::trim(*c));
        } else if (directive(line, "ifdef") || directive(line, "ifndef")) {
            conditions.emplace_back();
        } else if (auto e = directive(line, "elif")) {
            if (!conditions.empty()) conditions.back() = text::trim(*e);
        } else if (directive(line, "else")) {
            if (!conditions.empty()) conditions.back() = {};
        } else if (directive(line, "endif")) {
            if (!conditions.empty()) conditions.pop_back();
        } else if (auto msg = directive(line, "error")) {
            // Only the first check of each kind is read, which also keeps a hostile file linear.
            const bool gcc_check = !gcc_seen && text::contains(*msg, "unsupported GNU version");
            // "unsupported clang version" only: the Grace, HOS and Apple checks word it otherwise.
            const bool clang_check = !clang_seen && text::contains(*msg, "unsupported clang version");
            if (!gcc_check && !clang_check) continue;
            const auto cmps = comparisons(conditions.empty() ? std::string_view{} : conditions.back());
            if (gcc_check) {
                gcc_seen = true;
                limits.max_gcc_major = newest_accepted(cmps, "__GNUC__");
                if (limits.max_gcc_major) {
                    limits.max_gcc_minor = newest_gcc_minor(cmps, *limits.max_gcc_major);
                } else {
                    limits.max_gcc_major = number_after(*msg, "later than", 0);
                }
            }
            if (clang_check) {
                clang_seen = true;
                limits.max_clang_major = newest_accepted(cmps, "__clang_major__");
                if (!limits.max_clang_major) limits.max_clang_major = number_after(*msg, "less than", -1);
            }
        }
    }
    return limits;
}

}  // namespace cudoctor::formats
