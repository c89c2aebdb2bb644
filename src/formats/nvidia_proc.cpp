#include "formats/nvidia_proc.hpp"

#include <charconv>
#include <optional>

#include "common/text.hpp"
#include "formats/line_reader.hpp"

namespace cudoctor::formats {
namespace {

/// "550.54.14": digits and dots, at least one dot, none leading, trailing or doubled.
bool is_dotted_version(std::string_view token) {
    if (token.empty() || token.front() == '.' || token.back() == '.') return false;
    bool dot = false;
    for (std::size_t i = 0; i < token.size(); ++i) {
        const char c = token[i];
        if (c == '.') {
            if (token[i - 1] == '.') return false;
            dot = true;
        } else if (c < '0' || c > '9') {
            return false;
        }
    }
    return dot;
}

template <class T>
std::optional<T> parse_number(std::string_view s) {
    T value{};
    const auto* end = s.data() + s.size();
    const auto r = std::from_chars(s.data(), end, value);
    if (s.empty() || r.ec != std::errc() || r.ptr != end) return std::nullopt;
    return value;
}

bool is_module_name(std::string_view s) {
    if (s.empty()) return false;
    for (const char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
    return true;
}

bool is_alpha(std::string_view s) {
    if (s.empty()) return false;
    for (const char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
    return true;
}

std::optional<ProcModule> parse_module_line(std::string_view line) {
    const auto f = text::fields(line);
    if (f.size() < 5 || f.size() > 7 || !is_module_name(f[0]) || !is_alpha(f[4])) return std::nullopt;
    ProcModule m;
    m.name = std::string(f[0]);
    const auto size = parse_number<std::uint64_t>(f[1]);
    if (!size) return std::nullopt;
    m.size = *size;
    if (f[2] == "-") {
        m.refcount = -1;
    } else {
        const auto refcount = parse_number<int>(f[2]);
        if (!refcount || *refcount < 0) return std::nullopt;
        m.refcount = *refcount;
    }
    if (f[3] != "-") {
        for (const auto dep : text::split(f[3], ',')) {
            if (dep.empty()) continue;
            if (!is_module_name(dep)) return std::nullopt;
            m.deps.emplace_back(dep);
        }
    }
    m.state = std::string(f[4]);
    std::size_t next = 5;
    if (next < f.size() && f[next].starts_with("0x")) ++next;
    if (next < f.size() && f[next].size() >= 2 && f[next].front() == '(' && f[next].back() == ')') {
        m.taints = std::string(f[next].substr(1, f[next].size() - 2));
        ++next;
    }
    if (next != f.size()) return std::nullopt;
    return m;
}

}  // namespace

Expected<NvidiaProcVersion> parse_nvidia_proc_version(std::string_view text) {
    NvidiaProcVersion out;
    std::optional<std::string_view> nvrm;
    detail::LineReader lines(text);
    std::string_view line;
    while (lines.next(line)) {
        const auto trimmed = text::trim(line);
        if (!nvrm && trimmed.starts_with("NVRM version:")) nvrm = trimmed.substr(13);
        else if (out.compiler.empty() && trimmed.starts_with("GCC version:")) out.compiler = std::string(text::trim(trimmed.substr(12)));
    }
    if (!nvrm) return fail(Errc::parse, "no \"NVRM version:\" line in /proc/driver/nvidia/version");
    auto rest = *nvrm;
    const auto module_at = rest.find("Kernel Module");
    if (module_at != std::string_view::npos) {
        out.open = rest.substr(0, module_at).ends_with("Open ");
        rest = rest.substr(module_at + 13);
    }
    for (const auto token : text::fields(rest)) {
        if (is_dotted_version(token)) {
            out.version = std::string(token);
            return out;
        }
    }
    return fail(Errc::parse, "no driver version in the NVRM line: " + text::printable(text::trim(*nvrm)));
}

Expected<std::vector<ProcModule>> parse_proc_modules(std::string_view text) {
    std::vector<ProcModule> out;
    std::string_view first_bad;
    bool any_line = false;
    detail::LineReader lines(text);
    std::string_view line;
    while (lines.next(line)) {
        if (text::trim(line).empty()) continue;
        any_line = true;
        if (auto m = parse_module_line(line)) out.push_back(std::move(*m));
        else if (first_bad.empty()) first_bad = line;
    }
    if (any_line && out.empty())
        return fail(Errc::parse, "no line of /proc/modules could be read; the first is: " + text::printable(first_bad));
    return out;
}

}  // namespace cudoctor::formats
