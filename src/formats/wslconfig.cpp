#include "formats/wslconfig.hpp"

#include <charconv>

#include "common/text.hpp"
#include "formats/line_reader.hpp"

namespace cudoctor::formats {
namespace {

std::optional<std::uint64_t> size_of(std::string_view value) {
    value = text::trim(value);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = text::trim(value.substr(1, value.size() - 2));
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end == value.data()) return std::nullopt;
    const std::string unit = text::to_lower(text::trim(std::string_view(end, static_cast<std::size_t>(value.data() + value.size() - end))));
    std::uint64_t scale = 0;
    if (unit.empty() || unit == "b") scale = 1;
    else if (unit == "kb" || unit == "k") scale = 1ull << 10;
    else if (unit == "mb" || unit == "m") scale = 1ull << 20;
    else if (unit == "gb" || unit == "g") scale = 1ull << 30;
    else if (unit == "tb" || unit == "t") scale = 1ull << 40;
    else return std::nullopt;
    if (n > UINT64_MAX / scale) return std::nullopt;
    return n * scale;
}

}  // namespace

std::optional<WslMemoryLimit> parse_wslconfig_memory(std::string_view text) {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // Notepad's UTF-8 byte-order mark
    detail::LineReader lines(text);
    std::string_view line;
    std::size_t line_no = 0;
    bool in_wsl2 = false;
    std::optional<WslMemoryLimit> found;
    while (lines.next(line)) {
        ++line_no;
        line = text::trim(line);
        if (line.empty() || line.front() == '#' || line.front() == ';') continue;
        if (line.front() == '[') {
            const auto close = line.find(']');
            in_wsl2 = close != std::string_view::npos && text::to_lower(text::trim(line.substr(1, close - 1))) == "wsl2";
            continue;
        }
        if (!in_wsl2) continue;
        const auto eq = line.find('=');
        if (eq == std::string_view::npos || text::to_lower(text::trim(line.substr(0, eq))) != "memory") continue;
        auto value = line.substr(eq + 1);
        if (const auto comment = value.find_first_of("#;"); comment != std::string_view::npos) value = value.substr(0, comment);
        const auto bytes = size_of(value);
        if (!bytes) {
            found.reset();  // the last assignment wins, and this one is no size
            continue;
        }
        found = WslMemoryLimit{*bytes, std::string(text::trim(value).substr(0, 64)), line_no};
    }
    return found;
}

}  // namespace cudoctor::formats
