#include "compare/format_number.hpp"

#include <cmath>

#include <fmt/format.h>

namespace cudoctor::compare {

std::string format_number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (v == 0) return "0";
    return fmt::format("{:.2e}", v);
}

}  // namespace cudoctor::compare
