#pragma once
#include <functional>
#include <string_view>
#include <vector>

#include "kb/kb.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor::rules {

/// One rule: a stable id, its layer and severity, a pure check over Snapshot and KB, and the
/// explanation `cudoctor rules ID` prints. The same table feeds check, rules and explain.
struct Rule {
    std::string_view id;
    snapshot::Layer layer;
    snapshot::Severity severity;   ///< the most a finding of this rule can be (a finding may say less)
    std::string_view summary;      ///< what it catches, one line
    std::string_view explanation;  ///< why it matters and how it is fixed
    std::vector<snapshot::Finding> (*check)(const snapshot::Snapshot&, const kb::Kb&);
};

/// Every rule, in report order (by layer).
const std::vector<Rule>& all_rules();
/// The rule with this id, or nullptr.
const Rule* find_rule(std::string_view id);

/// Runs every rule; findings ordered by layer, root causes first.
std::vector<snapshot::Finding> evaluate(const snapshot::Snapshot& snap, const kb::Kb& kb);

/// Whether any finding is at least as severe as `threshold`.
bool worst_at_least(const std::vector<snapshot::Finding>& findings, snapshot::Severity threshold);

}  // namespace cudoctor::rules
