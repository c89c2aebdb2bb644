#include "formats/sysfs.hpp"

namespace cudoctor::formats {

std::optional<std::uint32_t> parse_sysfs_hex(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return std::nullopt;
    std::uint64_t value = 0;
    for (const char c : text.substr(2)) {
        int d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return std::nullopt;
        value = value * 16 + static_cast<std::uint64_t>(d);
        if (value > 0xffffffffULL) return std::nullopt;
    }
    return static_cast<std::uint32_t>(value);
}

}  // namespace cudoctor::formats
