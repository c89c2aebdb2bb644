#include "formats/pci_ids.hpp"

#include "common/text.hpp"
#include "formats/line_reader.hpp"

namespace cudoctor::formats {
namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// `line` starts with exactly four hex digits equal to `id`, then a space or TAB; the rest
/// (trimmed) goes to `name`.
bool id_line(std::string_view line, std::uint16_t id, std::string_view& name) {
    if (line.size() < 5 || (line[4] != ' ' && line[4] != '\t')) return false;
    unsigned value = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        const int d = hex_value(line[i]);
        if (d < 0) return false;
        value = value * 16 + static_cast<unsigned>(d);
    }
    if (value != id) return false;
    name = text::trim(line.substr(5));
    return true;
}

/// The line starting at `pos`, without its ending.
std::string_view line_at(std::string_view text, std::size_t pos) {
    const auto end = text.find('\n', pos);
    auto line = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
}

/// Offset of the vendor's line, or npos. Vendor lines start at column 0, so a search for
/// "\n" + the id (lower case, then upper case) finds them without reading every line.
std::size_t find_vendor_line(std::string_view text, std::uint16_t vendor, std::string_view& name) {
    if (id_line(line_at(text, 0), vendor, name)) return 0;
    std::string previous;
    for (const char* digits : {"0123456789abcdef", "0123456789ABCDEF"}) {
        std::string pattern = "\n";
        for (int i = 0; i < 4; ++i) pattern += digits[(vendor >> (12 - 4 * i)) & 0xf];
        if (pattern == previous) break;  // an id without letters reads the same in both cases
        previous = pattern;
        for (auto pos = text.find(pattern); pos != std::string_view::npos; pos = text.find(pattern, pos + 1))
            if (id_line(line_at(text, pos + 1), vendor, name)) return pos + 1;
    }
    return std::string_view::npos;
}

}  // namespace

std::optional<std::string> pci_ids_vendor_name(std::string_view pci_ids, std::uint16_t vendor) {
    std::string_view name;
    if (find_vendor_line(pci_ids, vendor, name) == std::string_view::npos || name.empty()) return std::nullopt;
    return std::string(name);
}

std::optional<std::string> pci_ids_device_name(std::string_view pci_ids, std::uint16_t vendor, std::uint16_t device) {
    std::string_view name;
    const auto at = find_vendor_line(pci_ids, vendor, name);
    if (at == std::string_view::npos) return std::nullopt;
    detail::LineReader lines(pci_ids);
    lines.seek(at);
    std::string_view line;
    lines.next(line);  // the vendor line itself
    while (lines.next(line)) {
        if (line.empty() || line[0] == '#') continue;
        if (line[0] != '\t') break;                        // the next vendor (or the class section): this block is over
        if (line.size() > 1 && line[1] == '\t') continue;  // a subsystem line
        if (id_line(line.substr(1), device, name)) {
            if (name.empty()) return std::nullopt;
            return std::string(name);
        }
    }
    return std::nullopt;
}

}  // namespace cudoctor::formats
