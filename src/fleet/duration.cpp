#include "fleet/duration.hpp"

namespace cudoctor::fleet {

std::optional<std::int64_t> parse_duration(std::string_view text) {
    constexpr std::int64_t kMax = 100LL * 366 * 86400;
    if (text.empty()) return std::nullopt;
    std::int64_t total = 0;
    std::size_t i = 0;
    while (i < text.size()) {
        std::int64_t n = 0;
        const std::size_t start = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
            n = n * 10 + (text[i] - '0');
            if (n > kMax) return std::nullopt;
            ++i;
        }
        if (i == start) return std::nullopt;
        std::int64_t unit = 1;
        if (i < text.size()) {
            switch (text[i]) {
                case 'w': unit = 7 * 86400; break;
                case 'd': unit = 86400; break;
                case 'h': unit = 3600; break;
                case 'm': unit = 60; break;
                case 's': unit = 1; break;
                default: return std::nullopt;
            }
            ++i;
        } else if (start != 0) {
            return std::nullopt;  // "3d12": a unit-less tail after a unit is a typo, not seconds
        }
        total += n * unit;
        if (total > kMax) return std::nullopt;
    }
    return total;
}

}  // namespace cudoctor::fleet
