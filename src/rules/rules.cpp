#include "rules/rules.hpp"

namespace cudoctor::rules {

const std::vector<Rule>& all_rules() {
    static const std::vector<Rule> rules = {};
    return rules;
}

const Rule* find_rule(std::string_view id) {
    for (const auto& r : all_rules())
        if (r.id == id) return &r;
    return nullptr;
}

std::vector<snapshot::Finding> evaluate(const snapshot::Snapshot& snap, const kb::Kb& kb) {
    std::vector<snapshot::Finding> findings;
    for (const auto& rule : all_rules())
        for (auto& f : rule.check(snap, kb)) findings.push_back(std::move(f));
    return findings;
}

bool worst_at_least(const std::vector<snapshot::Finding>& findings, std::string_view threshold) {
    for (const auto& f : findings) {
        if (f.severity == "error") return true;
        if (threshold == "warning" && f.severity == "warning") return true;
    }
    return false;
}

}  // namespace cudoctor::rules
