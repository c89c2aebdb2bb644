#pragma once
#include <string>
#include <string_view>
#include <vector>

/// NVIDIA_REQUIRE_* values of a container image, as the NVIDIA Container Toolkit reads them:
/// "cuda>=12.4 brand=tesla,driver>=470,driver<471 …". Space-separated alternatives are ORed,
/// the comma-separated conditions of one alternative are ANDed (libnvidia-container's
/// documentation of NVIDIA_REQUIRE_*).
namespace cudoctor::formats {

/// One condition: "driver>=470" → {driver, >=, 470}. `op` is one of = != < <= > >=; empty when
/// the text has no operator or no key (then the condition is one nobody can evaluate).
struct RequireCondition {
    std::string key, op, value;
    friend bool operator==(const RequireCondition&, const RequireCondition&) = default;
};
/// The alternatives, each a list of conditions that must all hold.
using RequireExpression = std::vector<std::vector<RequireCondition>>;

/// Parses one NVIDIA_REQUIRE_* value. Empty alternatives (repeated spaces or commas) are
/// skipped; a blank value gives no alternative. Never fails.
RequireExpression parse_nvidia_require(std::string_view text);

}  // namespace cudoctor::formats
