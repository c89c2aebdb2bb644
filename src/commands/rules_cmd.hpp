#pragma once
#include <optional>
#include <ostream>
#include <string>

#include "common/exit_status.hpp"

namespace cudoctor::commands {

struct RulesShowing {
    bool json = false;
    bool quiet = false;  ///< -q: the count by severity, or the one rule's id and summary, in one line
};

/// `cudoctor rules [ID]`: every rule (id, severity, layer, what it catches), or one rule
/// explained. An unknown id is a usage error naming the closest ids.
ExitStatus run_rules(const std::optional<std::string>& id, const RulesShowing& showing, std::ostream& out, std::ostream& err);

}  // namespace cudoctor::commands
