#include "watch/status_line.hpp"

#include <sys/ioctl.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "report/style.hpp"
#include "watch/trend.hpp"

namespace cudoctor::watch {
namespace {

/// Byte length of the UTF-8 sequence starting with `lead` (1 for a stray byte).
std::size_t sequence_length(unsigned char lead) { return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1; }

/// East Asian wide and fullwidth characters, emoji: two columns on a terminal.
bool is_wide(char32_t cp) {
    return (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf && cp != 0x303f) || (cp >= 0xac00 && cp <= 0xd7a3) ||
           (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
           (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1faff) || (cp >= 0x20000 && cp <= 0x3fffd);
}

/// Columns of the character at s[i], and its length in bytes.
std::pair<std::size_t, std::size_t> character_at(std::string_view s, std::size_t i) {
    const auto lead = static_cast<unsigned char>(s[i]);
    const std::size_t len = std::min(sequence_length(lead), s.size() - i);
    char32_t cp = len == 1 ? lead : len == 2 ? (lead & 0x1f) : len == 3 ? (lead & 0x0f) : (lead & 0x07);
    for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
    return {is_wide(cp) ? 2 : 1, len};
}

/// What share of `whole` `part` is, in whole percent (rounded, at most 100).
unsigned percent(std::uint64_t part, std::uint64_t whole) {
    return static_cast<unsigned>(std::min<double>(std::lround(static_cast<double>(part) * 100.0 / static_cast<double>(whole)), 100));
}

/// `text` cut to `width` columns, with "…" where it was cut.
std::string cut_to(std::string_view text, std::size_t width) {
    if (display_columns(text) <= width) return std::string(text);
    if (width == 0) return {};
    std::string out;
    std::size_t used = 0;
    for (std::size_t i = 0; i < text.size();) {
        const auto [cols, len] = character_at(text, i);
        if (used + cols + 1 > width) break;  // one column for the "…"
        out.append(text.substr(i, len));
        used += cols;
        i += len;
    }
    return out + "…";
}

std::string one_gpu(const GpuReading& g) {
    std::string s = fmt::format("GPU{}", g.index);
    if (g.memory_used && g.memory_total)
        s += fmt::format(" {}/{}", bytes_text(static_cast<double>(*g.memory_used)), bytes_text(static_cast<double>(*g.memory_total)));
    if (g.util_gpu) s += fmt::format(" {}%", *g.util_gpu);
    if (g.temperature_c) s += fmt::format(" {}°C", *g.temperature_c);
    if (g.power_mw) s += fmt::format(" {:.0f}W", *g.power_mw / 1000.0);
    return s;
}

/// Every GPU in one phrase: "8 GPUs · mem max 71% · util max 99% · max 83°C" ("mem 12%" for one).
std::string all_gpus(const Reading& r) {
    const std::size_t n = r.gpus.size();
    std::optional<unsigned> mem, util, temp;
    for (const auto& g : r.gpus) {
        if (g.memory_used && g.memory_total && *g.memory_total) {
            mem = std::max(mem.value_or(0), percent(*g.memory_used, *g.memory_total));
        }
        if (g.util_gpu) util = std::max(util.value_or(0), *g.util_gpu);
        if (g.temperature_c) temp = std::max(temp.value_or(0), *g.temperature_c);
    }
    const char* max = n == 1 ? "" : " max";
    std::string s = fmt::format("{} GPU{}", n, n == 1 ? "" : "s");
    if (mem) s += fmt::format(" · mem{} {}%", max, *mem);
    if (util) s += fmt::format(" · util{} {}%", max, *util);
    if (temp) s += fmt::format(" ·{} {}°C", max, *temp);
    return s;
}

/// Memory only: "8 GPUs · mem max 71%".
std::string all_gpus_short(const Reading& r) {
    const std::size_t n = r.gpus.size();
    std::optional<unsigned> mem;
    for (const auto& g : r.gpus)
        if (g.memory_used && g.memory_total && *g.memory_total) mem = std::max(mem.value_or(0), percent(*g.memory_used, *g.memory_total));
    return fmt::format("{} GPU{}", n, n == 1 ? "" : "s") + (mem ? fmt::format(" · mem{} {}%", n == 1 ? "" : " max", *mem) : "");
}

}  // namespace

std::size_t display_columns(std::string_view text) {
    std::size_t cols = 0;
    for (std::size_t i = 0; i < text.size();) {
        const auto [c, len] = character_at(text, i);
        cols += c;
        i += len;
    }
    return cols;
}

std::string status_line(double elapsed, const Reading& r, std::size_t samples, std::size_t reports, std::size_t width) {
    const std::string head = fmt::format("[{}] {} samples", clock_text(elapsed), samples);
    const std::string tail = fmt::format("{} proc | Xid {}", r.processes.size(), reports);
    // From the most to the least said; the first that fits is drawn. The Xid count stays to the
    // last: a driver report is what a glance at the line is for.
    const std::string at = "[" + clock_text(elapsed) + "]";
    std::vector<std::string> candidates;
    if (!r.gpus.empty()) {
        std::string full = head;
        for (const auto& g : r.gpus) full += " | " + one_gpu(g);
        candidates.push_back(full + " | " + tail);
        candidates.push_back(head + " | " + all_gpus(r) + " | " + tail);
        candidates.push_back(fmt::format("{} {} · {} proc · Xid {}", at, all_gpus_short(r), r.processes.size(), reports));
        candidates.push_back(fmt::format("{} {} · Xid {}", at, all_gpus_short(r), reports));
    } else {
        candidates.push_back(fmt::format("{} · no GPU · Xid {}", head, reports));
        candidates.push_back(fmt::format("{} no GPU · Xid {}", at, reports));
    }
    std::string line;
    for (const auto& c : candidates)
        if (display_columns(c) <= width) {
            line = c;
            break;
        }
    if (line.empty()) return cut_to(candidates.back(), width);
    // A sample's trouble (a hung or missing NVML) is worth the rest of the line, when some is left.
    if (!r.trouble.empty()) {
        const std::size_t used = display_columns(line) + 3;
        if (used + 12 <= width) line += " | " + cut_to(report::outside_text(r.trouble, report::Medium::terminal), width - used);
    }
    return line;
}

std::size_t terminal_width(std::optional<unsigned> ws_col, const char* columns_env) {
    if (ws_col && *ws_col > 0) return *ws_col;
    if (columns_env) {
        std::string_view text(columns_env);
        unsigned value = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && end == text.data() + text.size() && value >= 1 && value <= 10000) return value;
    }
    return 80;
}

std::size_t terminal_width(int fd) {
    struct winsize ws {};
    std::optional<unsigned> cols;
    if (::ioctl(fd, TIOCGWINSZ, &ws) == 0) cols = ws.ws_col;
    return terminal_width(cols, std::getenv("COLUMNS"));
}

}  // namespace cudoctor::watch
