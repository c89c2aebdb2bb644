#include "report/style.hpp"

#include <cmath>
#include <cstdio>

#include <fmt/format.h>

namespace cudoctor::report {
namespace {

std::string_view sgr_of(Ink ink) {
    switch (ink) {
        case Ink::bold: return "1";
        case Ink::dim: return "2";
        case Ink::red: return "31";
        case Ink::green: return "32";
        case Ink::yellow: return "33";
        case Ink::bold_red: return "1;31";
        case Ink::bold_green: return "1;32";
    }
    return "0";
}

/// Length of the well-formed UTF-8 character at s[i] that is safe on a terminal, or 0 (an
/// invalid byte, or a C1 control U+0080–U+009F: U+009B is a one-byte CSI on some terminals).
std::size_t safe_utf8_length(std::string_view s, std::size_t i) {
    const auto u = static_cast<unsigned char>(s[i]);
    const std::size_t len = u >= 0xf0 && u < 0xf5 ? 4 : u >= 0xe0 ? 3 : u >= 0xc2 && u < 0xe0 ? 2 : 0;
    if (len == 0 || i + len > s.size()) return 0;
    auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    for (std::size_t k = 1; k < len; ++k)
        if ((at(k) & 0xc0) != 0x80) return 0;
    if (len == 2 && u == 0xc2 && at(1) < 0xa0) return 0;   // C1 controls
    if (len == 3 && u == 0xe0 && at(1) < 0xa0) return 0;   // overlong
    if (len == 3 && u == 0xed && at(1) >= 0xa0) return 0;  // surrogates
    if (len == 4 && u == 0xf0 && at(1) < 0x90) return 0;   // overlong
    if (len == 4 && u == 0xf4 && at(1) >= 0x90) return 0;  // past U+10FFFF
    return len;
}

}  // namespace

std::string Painter::paint(Ink ink, std::string_view text) const {
    if (!m_color) return std::string(text);
    return fmt::format("\033[{}m{}\033[0m", sgr_of(ink), text);
}

std::string outside_text(std::string_view text, Medium medium) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        const auto u = static_cast<unsigned char>(c);
        if (u == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xa0 &&
            static_cast<unsigned char>(text[i + 1]) >= 0x80) {  // one C1 control, one '?'
            out += '?';
            i += 2;
            continue;
        }
        if (u >= 0x80) {
            const std::size_t len = safe_utf8_length(text, i);
            if (len == 0) {
                out += '?';
                ++i;
            } else {
                out.append(text.substr(i, len));
                i += len;
            }
            continue;
        }
        ++i;
        if (medium == Medium::markdown) {
            if (c == '\n') {
                out += "<br>";
                continue;
            }
            if (c == '\r') continue;  // of a CRLF, or stray: a cell has no use for it
            if (c == '|') {
                out += "\\|";
                continue;
            }
        }
        if ((u < 0x20 && c != '\t') || u == 0x7f) {  // a TAB moves the cursor, nothing more
            out += '?';
            continue;
        }
        if (medium == Medium::svg) {
            switch (c) {
                case '&': out += "&amp;"; continue;
                case '<': out += "&lt;"; continue;
                case '>': out += "&gt;"; continue;
                case '"': out += "&quot;"; continue;
                default: break;
            }
        }
        out += c;
    }
    return out;
}

std::string markdown_cell(std::string_view text, std::string_view empty) {
    std::string cell = outside_text(text, Medium::markdown);
    return cell.empty() ? std::string(empty) : cell;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep, bool skip_empty) {
    std::string out;
    bool first = true;
    for (const auto& p : parts) {
        if (skip_empty && p.empty()) continue;
        if (!first) out += sep;
        out += p;
        first = false;
    }
    return out;
}

std::string bytes_text(double bytes, ByteStyle style) {
    constexpr double kKiB = 1024.0, kMiB = kKiB * 1024.0, kGiB = kMiB * 1024.0;
    switch (style) {
        case ByteStyle::significant: {
            const double a = std::abs(bytes);
            if (a >= kGiB) return fmt::format("{:.3g} GiB", bytes / kGiB);
            if (a >= kMiB) return fmt::format("{:.3g} MiB", bytes / kMiB);
            if (a >= kKiB) return fmt::format("{:.3g} KiB", bytes / kKiB);
            return fmt::format("{:.0f} B", bytes);
        }
        case ByteStyle::one_decimal: {
            const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
            double v = bytes;
            int u = 0;
            while (v >= 1024 && u < 4) v /= 1024, ++u;
            char buf[32];
            std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
            return buf;
        }
        case ByteStyle::whole_from_ten: {
            const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
            const auto n = static_cast<std::uint64_t>(bytes);
            if (n < 1024) return std::to_string(n) + (n == 1 ? " byte" : " bytes");
            double v = static_cast<double>(n) / 1024;
            int u = 0;
            while (v >= 1024 && u < 4) v /= 1024, ++u;
            char buf[32];
            std::snprintf(buf, sizeof buf, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
            return buf;
        }
        case ByteStyle::decimal: {
            const auto n = static_cast<std::uint64_t>(bytes);
            if (n >= (1ull << 30)) return fmt::format("{:.1f} GB", static_cast<double>(n) / 1e9);
            if (n >= (1ull << 20)) return fmt::format("{:.0f} MB", static_cast<double>(n) / 1e6);
            if (n >= 1024) return fmt::format("{:.0f} kB", static_cast<double>(n) / 1e3);
            return fmt::format("{} bytes", n);
        }
    }
    return {};
}

}  // namespace cudoctor::report
