#include "formats/windows_inf.hpp"

#include <charconv>
#include <string>
#include <vector>

#include "common/text.hpp"
#include "formats/line_reader.hpp"

namespace cudoctor::formats {
namespace {

/// UTF-16LE text (a BOM, or a NUL in every second byte of the start) as bytes: ASCII characters
/// kept, anything else a '?' (no key or version of the [Version] section needs more).
std::string narrow_utf16le(std::string_view text) {
    std::string out;
    out.reserve(text.size() / 2);
    std::size_t i = text.starts_with("\xFF\xFE") ? 2 : 0;
    for (; i + 1 < text.size(); i += 2) {
        const auto lo = static_cast<unsigned char>(text[i]);
        const auto hi = static_cast<unsigned char>(text[i + 1]);
        out += (hi == 0 && lo < 0x80) ? static_cast<char>(lo) : '?';
    }
    return out;
}

bool looks_utf16le(std::string_view text) {
    if (text.starts_with("\xFF\xFE")) return true;
    return text.size() >= 4 && text[0] != '\0' && text[1] == '\0' && text[2] != '\0' && text[3] == '\0';
}

std::optional<unsigned> number(std::string_view s) {
    unsigned v = 0;
    if (s.empty() || s.size() > 9) return std::nullopt;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

std::optional<std::vector<unsigned>> four_numbers(std::string_view version) {
    std::vector<unsigned> out;
    for (auto part : text::split(version, '.')) {
        auto n = number(part);
        if (!n) return std::nullopt;
        out.push_back(*n);
    }
    if (out.size() != 4) return std::nullopt;
    return out;
}

std::string_view unquoted(std::string_view s) {
    s = text::trim(s);
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = text::trim(s.substr(1, s.size() - 2));
    return s;
}

}  // namespace

std::optional<InfDriverVer> parse_inf_driver_ver(std::string_view raw) {
    std::string wide_copy;
    std::string_view text = raw;
    if (looks_utf16le(raw)) {
        wide_copy = narrow_utf16le(raw);
        text = wide_copy;
    }
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 BOM
    detail::LineReader lines(text);
    std::string_view line;
    bool in_version = false;
    while (lines.next(line)) {
        if (const auto semi = line.find(';'); semi != std::string_view::npos) line = line.substr(0, semi);
        line = text::trim(line);
        if (line.empty()) continue;
        if (line.front() == '[') {
            const auto close = line.find(']');
            in_version = close != std::string_view::npos && text::to_lower(text::trim(line.substr(1, close - 1))) == "version";
            continue;
        }
        if (!in_version) continue;
        const auto eq = line.find('=');
        if (eq == std::string_view::npos || text::to_lower(text::trim(line.substr(0, eq))) != "driverver") continue;
        const auto value = line.substr(eq + 1);
        const auto comma = value.find(',');
        if (comma == std::string_view::npos) return std::nullopt;
        const auto version = unquoted(value.substr(comma + 1));
        if (!four_numbers(version)) return std::nullopt;
        return InfDriverVer{std::string(unquoted(value.substr(0, comma))), std::string(version)};
    }
    return std::nullopt;
}

std::optional<std::string> nvidia_version_of_windows(std::string_view file_version) {
    const auto f = four_numbers(file_version);
    if (!f || (*f)[2] < 10 || (*f)[2] > 99 || (*f)[3] > 9999) return std::nullopt;
    const unsigned merged = ((*f)[2] - 10) * 10000 + (*f)[3];
    if (merged < 10000) return std::nullopt;  // below 100.00: no NVIDIA driver of the WDDM era
    const unsigned minor = merged % 100;
    return std::to_string(merged / 100) + (minor < 10 ? ".0" : ".") + std::to_string(minor);
}

}  // namespace cudoctor::formats
