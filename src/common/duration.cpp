#include "common/duration.hpp"

#include <cmath>

namespace cudoctor {

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
    constexpr double kMaxMs = 100.0 * 366 * 86400e3;
    if (text.empty()) return std::nullopt;
    double total = 0;
    std::size_t i = 0;
    while (i < text.size()) {
        // A number: digits, optionally a fraction.
        const std::size_t start = i;
        double value = 0;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') value = value * 10 + (text[i++] - '0');
        if (i < text.size() && text[i] == '.') {
            ++i;
            double scale = 0.1;
            const std::size_t fraction = i;
            while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
                value += (text[i++] - '0') * scale;
                scale /= 10;
            }
            if (i == fraction) return std::nullopt;  // "1." or "."
        }
        if (i == start || (i == start + 1 && text[start] == '.')) return std::nullopt;
        // Its unit; none only when the number is the whole text.
        const std::string_view rest = text.substr(i);
        double unit = 0;
        std::size_t used = 1;
        if (rest.empty()) {
            if (start != 0) return std::nullopt;
            unit = 1e3;
            used = 0;
        } else if (rest.starts_with("ms")) {
            unit = 1, used = 2;
        } else if (rest.starts_with("min")) {
            unit = 60e3, used = 3;
        } else {
            switch (rest.front()) {
                case 's': unit = 1e3; break;
                case 'm': unit = 60e3; break;
                case 'h': unit = 3600e3; break;
                case 'd': unit = 86400e3; break;
                case 'w': unit = 7 * 86400e3; break;
                default: return std::nullopt;
            }
        }
        i += used;
        total += value * unit;
        if (!std::isfinite(total) || total > kMaxMs) return std::nullopt;
    }
    return std::chrono::milliseconds(static_cast<long long>(std::llround(total)));
}

}  // namespace cudoctor
