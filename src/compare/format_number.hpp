#pragma once
#include <string>

namespace cudoctor::compare {

/// A measured error for people: "0", "3.2e-04", "1.6e-02", "inf", "nan" (3 significant digits,
/// scientific, so a column of them lines up and sorts by eye).
std::string format_number(double v);

}  // namespace cudoctor::compare
