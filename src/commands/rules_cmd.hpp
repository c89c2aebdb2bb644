#pragma once
#include <optional>
#include <ostream>
#include <string>

#include "common/exit_status.hpp"

namespace cudoctor::commands {

/// `cudoctor rules [ID]`: every rule (id, severity, layer, what it catches), or one rule
/// explained. An unknown id is a usage error naming the closest ids.
ExitStatus run_rules(const std::optional<std::string>& id, bool json, std::ostream& out, std::ostream& err);

}  // namespace cudoctor::commands
