#include "rules/ids.hpp"

namespace cudoctor::rules {

namespace {

/// An empty relation slot, or a failure mode a rule names.
consteval bool empty_or_rule(const std::string_view& id) {
    if (id.empty()) return true;
    const auto i = registered_index(id);
    return i != kNotRegistered && kFailureModes[i].named_by != NamedBy::cause;
}

/// The registry's own rules: ids and old ids unique and distinct, and every
/// relation naming a rule, for a cause only.
consteval bool registry_is_consistent() {
    for (std::size_t i = 0; i < kFailureModes.size(); ++i) {
        const auto& m = kFailureModes[i];
        if (m.id.empty()) return false;
        if (!m.old_id.empty() && (registered_index(m.old_id) != kNotRegistered || m.named_by == NamedBy::rule)) return false;
        for (std::size_t j = i + 1; j < kFailureModes.size(); ++j) {
            if (kFailureModes[j].id == m.id) return false;
            if (!m.old_id.empty() && kFailureModes[j].old_id == m.old_id) return false;
        }
        for (const auto& r : m.confirmed_by)
            if (!empty_or_rule(r)) return false;
        for (const auto& r : m.contradicted_absent)
            if (!empty_or_rule(r)) return false;
        if (m.named_by == NamedBy::rule && (!m.confirmed_by[0].empty() || !m.contradicted_absent[0].empty())) return false;
    }
    return true;
}
static_assert(registry_is_consistent(), "src/rules/ids.hpp: duplicated id or a relation to a non-rule");

}  // namespace

std::span<const FailureMode> all_failure_modes() { return kFailureModes; }

const FailureMode* find_failure_mode(std::string_view id_or_alias) {
    if (const auto* m = registered(id_or_alias)) return m;
    if (id_or_alias.empty()) return nullptr;
    for (const auto& m : kFailureModes)
        if (m.old_id == id_or_alias) return &m;
    return nullptr;
}

bool is_rule_id(std::string_view id) {
    const auto* m = registered(id);
    return m && m->named_by != NamedBy::cause;
}

}  // namespace cudoctor::rules
