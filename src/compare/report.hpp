#pragma once
// What `compare` prints: a table (the first failing layer marked), JSON, and the summary line.
#include <ostream>

#include <nlohmann/json.hpp>

#include "compare/compare.hpp"

namespace cudoctor::compare {

/// The table, one row per tensor in order, the reasons under each failing row, the first failure
/// marked "<- first failure" (and in bold red when `color`), then the unmatched names and a
/// summary line.
void render_text(const Comparison& c, std::ostream& out, bool color);

/// {"ref": {...}, "test": {...}, "tensors": [...], "only_in_ref": [...], "only_in_test": [...],
///  "first_failure": name|null, "summary": {...}}. Non-finite numbers are written as the
/// strings "inf", "-inf", "nan" (JSON has no such numbers).
nlohmann::json to_json(const Comparison& c);

}  // namespace cudoctor::compare
