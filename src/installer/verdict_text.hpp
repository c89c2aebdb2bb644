#pragma once
// The verdict in words and the fix, as exact commands for this file.
#include <cstdint>
#include <optional>

#include "installer/verify.hpp"

namespace cudoctor::installer {

/// Fills report.summary and appends report.fixes for report.verdict. `free_where_it_sits`
/// (bytes), when known and nearly nothing, names a full disk as the cause of a cut download.
void explain_verdict(VerifyReport& report, std::optional<std::uint64_t> free_where_it_sits);

}  // namespace cudoctor::installer
