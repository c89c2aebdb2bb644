#include "fleet/duration.hpp"

#include "common/duration.hpp"

namespace cudoctor::fleet {

std::optional<std::int64_t> parse_duration(std::string_view text) {
    const auto d = cudoctor::parse_duration(text);
    if (!d) return std::nullopt;
    return std::chrono::duration_cast<std::chrono::seconds>(*d).count();
}

}  // namespace cudoctor::fleet
