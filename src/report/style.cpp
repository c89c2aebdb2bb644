#include "report/style.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "common/text.hpp"

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

/// U+FFFE and U+FFFF: well-formed UTF-8, but no characters XML 1.0 allows.
bool xml_noncharacter(std::string_view c) { return c == "\xef\xbf\xbe" || c == "\xef\xbf\xbf"; }

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
        if (u >= 0x80) {
            // A character we refuse costs one '?' in all, an invalid byte one '?' each.
            const std::size_t len = text::utf8_length(text, i);
            const auto character = text.substr(i, std::max<std::size_t>(len, 1));
            if (len == 0 || text::terminal_refuses(character) || (medium == Medium::svg && xml_noncharacter(character))) out += '?';
            else out.append(character);
            i += character.size();
            continue;
        }
        ++i;
        if (medium == Medium::markdown) {
            switch (c) {
                case '\n': out += "<br>"; continue;
                case '\r': continue;  // of a CRLF, or stray: Markdown has no use for it
                case '\\':
                case '|':
                case '`':
                    out += '\\';
                    out += c;
                    continue;
                case '<': out += "&lt;"; continue;
                default: break;
            }
        }
        if (medium == Medium::prometheus) {
            switch (c) {
                case '\n': out += "\\n"; continue;
                case '\\': out += "\\\\"; continue;
                case '"': out += "\\\""; continue;
                default: break;
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
                case '\'': out += "&apos;"; continue;
                default: break;
            }
        }
        out += c;
    }
    return out;
}

std::string outside_lines(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    while (!text.empty()) {
        const auto nl = text.find('\n');
        auto line = text.substr(0, nl);
        if (nl != std::string_view::npos && line.ends_with('\r')) line.remove_suffix(1);
        out += outside_text(line, Medium::terminal);
        if (nl == std::string_view::npos) break;
        out += '\n';
        text.remove_prefix(nl + 1);
    }
    return out;
}

std::string markdown_cell(std::string_view text, std::string_view empty) {
    std::string cell = outside_text(text, Medium::markdown);
    return cell.empty() ? std::string(empty) : cell;
}

std::string markdown_code(std::string_view text) {
    if (text.empty()) return {};
    std::string inner;
    for (char c : outside_lines(text)) {
        if (c == '\n') inner += ' ';
        else if (c == '|') inner += "\\|";
        else inner += c;
    }
    std::size_t longest = 0, run = 0;
    for (char c : inner) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const std::string fence(longest + 1, '`');
    // A span that starts or ends with a backtick needs a space inside the fence (which Markdown strips).
    const bool pad = inner.front() == '`' || inner.back() == '`';
    return fence + (pad ? " " : "") + inner + (pad ? " " : "") + fence;
}

std::string markdown_block(std::string_view text, std::string_view info, std::string_view indent) {
    const std::string body = outside_lines(text);
    std::size_t longest = 0, run = 0;
    for (char c : body) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
    std::string out = std::string(indent) + fence + std::string(info) + "\n";
    std::string_view rest = body;
    while (!rest.empty()) {
        const auto nl = rest.find('\n');
        out += std::string(indent) + std::string(rest.substr(0, nl)) + "\n";
        rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    }
    return out + std::string(indent) + fence + "\n";
}

std::string json_text(const nlohmann::json& j, int indent) { return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace); }

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
