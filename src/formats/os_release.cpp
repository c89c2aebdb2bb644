#include "formats/os_release.hpp"

#include <optional>

#include "common/text.hpp"
#include "formats/line_reader.hpp"

namespace cudoctor::formats {
namespace {

bool is_key(std::string_view key) {
    if (key.empty() || (key[0] >= '0' && key[0] <= '9')) return false;
    for (const char c : key)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

/// The shell word `raw` with its quotes and escapes resolved, or nullopt for an open quote.
std::optional<std::string> unquote(std::string_view raw) {
    std::string out;
    std::size_t i = 0;
    while (i < raw.size()) {
        const char c = raw[i++];
        if (c == '\\') {
            if (i < raw.size()) out += raw[i++];  // a lone trailing backslash is dropped
        } else if (c == '\'') {
            const auto end = raw.find('\'', i);
            if (end == std::string_view::npos) return std::nullopt;
            out += raw.substr(i, end - i);
            i = end + 1;
        } else if (c == '"') {
            while (true) {
                if (i >= raw.size()) return std::nullopt;
                const char d = raw[i++];
                if (d == '"') break;
                if (d == '\\' && i < raw.size() && (raw[i] == '\\' || raw[i] == '"' || raw[i] == '$' || raw[i] == '`')) {
                    out += raw[i++];
                } else {
                    out += d;
                }
            }
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace

std::map<std::string, std::string> parse_os_release(std::string_view text) {
    std::map<std::string, std::string> out;
    detail::LineReader lines(text);
    std::string_view line;
    while (lines.next(line)) {
        line = text::trim(line);
        if (line.empty() || line[0] == '#') continue;
        const auto eq = line.find('=');
        if (eq == std::string_view::npos) continue;
        const auto key = text::trim(line.substr(0, eq));
        if (!is_key(key)) continue;
        auto value = unquote(text::trim(line.substr(eq + 1)));
        if (!value) continue;
        out[std::string(key)] = std::move(*value);
    }
    return out;
}

}  // namespace cudoctor::formats
