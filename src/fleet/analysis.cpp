#include "fleet/analysis.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "rules/rules.hpp"

namespace cudoctor::fleet {
namespace {

// Keeps one node per host name: the newest snapshot wins, a tie goes to the later file.
void drop_duplicates(std::vector<NodeSummary>& nodes, std::vector<Unreadable>& unreadable) {
    std::unordered_map<std::string, std::size_t> by_host;
    std::vector<bool> dropped(nodes.size(), false);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].hostname.empty()) continue;
        auto [it, fresh] = by_host.try_emplace(nodes[i].hostname, i);
        if (fresh) continue;
        const std::size_t kept = it->second;
        const auto t_old = nodes[kept].taken_at_epoch.value_or(INT64_MIN);
        const auto t_new = nodes[i].taken_at_epoch.value_or(INT64_MIN);
        const bool newer = t_new >= t_old;
        const std::size_t loser = newer ? kept : i, winner = newer ? i : kept;
        dropped[loser] = true;
        it->second = winner;
        unreadable.push_back({nodes[loser].file, "duplicate",
                              "host " + nodes[loser].hostname + " is also in " + nodes[winner].file + " (the newer snapshot is used)"});
    }
    std::vector<NodeSummary> kept;
    kept.reserve(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
        if (!dropped[i]) kept.push_back(std::move(nodes[i]));
    nodes = std::move(kept);
}

void rename_colliding(std::vector<NodeSummary>& nodes) {
    std::unordered_map<std::string, int> count;
    for (const auto& n : nodes) ++count[n.name];
    for (auto& n : nodes)
        if (n.hostname.empty() && count[n.name] > 1) n.name = n.file;
}

std::vector<std::string> minus(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::vector<std::string> out;
    for (const auto& x : a)
        if (std::find(b.begin(), b.end(), x) == b.end()) out.push_back(x);
    return out;
}

LayerReport layer_report(Layer layer, const std::vector<NodeSummary>& nodes, const std::optional<NodeSummary>& baseline) {
    LayerReport r;
    r.layer = layer;
    std::map<std::vector<std::string>, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < nodes.size(); ++i) groups[nodes[i].items(layer)].push_back(i);
    for (auto& [items, idx] : groups) r.variants.push_back({items, std::move(idx)});
    std::stable_sort(r.variants.begin(), r.variants.end(),
                     [](const Variant& a, const Variant& b) { return a.nodes.size() > b.nodes.size(); });
    if (baseline) {
        r.reference = baseline->items(layer);
    } else if (!r.variants.empty()) {
        r.reference = r.variants.front().items;
        r.tie = r.variants.size() > 1 && r.variants[1].nodes.size() == r.variants[0].nodes.size();
    }
    for (const auto& v : r.variants)
        if (v.items == r.reference) r.agree = v.nodes.size();
    return r;
}

}  // namespace

FleetReport analyse(std::vector<std::variant<NodeSummary, Unreadable>> results, const AnalyseOptions& options) {
    FleetReport report;
    report.baseline = options.baseline;
    report.stale_after_seconds = options.stale_after_seconds;
    for (auto& r : results) {
        if (auto* n = std::get_if<NodeSummary>(&r)) report.nodes.push_back(std::move(*n));
        else report.unreadable.push_back(std::move(std::get<Unreadable>(r)));
    }
    results.clear();
    drop_duplicates(report.nodes, report.unreadable);
    rename_colliding(report.nodes);
    const auto& nodes = report.nodes;

    for (std::size_t l = 0; l < kLayerCount; ++l) report.layers[l] = layer_report(kLayers[l], nodes, options.baseline);

    for (std::size_t i = 0; i < nodes.size(); ++i) {
        NodeDrift drift{i, {}};
        for (const auto& layer : report.layers) {
            const auto& items = nodes[i].items(layer.layer);
            if (items == layer.reference) continue;
            drift.differences.push_back({layer.layer, items, layer.reference, minus(layer.reference, items), minus(items, layer.reference)});
        }
        if (!drift.differences.empty()) report.drift.push_back(std::move(drift));
    }

    std::map<std::string, RuleGroup> groups;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        std::set<std::string> seen;  // a rule firing twice on one node counts the node once
        for (const auto& f : nodes[i].findings) {
            auto [it, fresh] = groups.try_emplace(f.id);
            auto& g = it->second;
            if (fresh) {
                const rules::Rule* rule = rules::find_rule(f.id);
                g = {f.id, f.severity, f.layer, rule ? std::string(rule->summary) : f.title, {}, {}};
            } else if (f.severity > g.severity) {
                g.severity = f.severity;
            }
            if (!seen.insert(f.id).second) {
                if (f.severity > g.node_severities.back()) g.node_severities.back() = f.severity;  // this node's is the last
                continue;
            }
            g.nodes.push_back(i);
            g.node_severities.push_back(f.severity);
        }
    }
    for (auto& [id, g] : groups) report.findings.push_back(std::move(g));
    std::stable_sort(report.findings.begin(), report.findings.end(), [](const RuleGroup& a, const RuleGroup& b) {
        if (a.severity != b.severity) return a.severity > b.severity;
        return a.nodes.size() > b.nodes.size();
    });

    for (const auto& n : nodes)
        if (n.taken_at_epoch && (!report.newest || *n.taken_at_epoch > *report.newest)) report.newest = n.taken_at_epoch;
    if (options.stale_after_seconds > 0) {
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            if (!nodes[i].taken_at_epoch) {
                report.stale.push_back({i, std::nullopt});
                continue;
            }
            const std::int64_t age = *report.newest - *nodes[i].taken_at_epoch;
            if (age > options.stale_after_seconds) report.stale.push_back({i, age});
        }
    }
    return report;
}

bool RuleGroup::mixed_severity() const {
    return std::any_of(node_severities.begin(), node_severities.end(), [&](snapshot::Severity s) { return s != node_severities.front(); });
}

bool has_problems(const FleetReport& report, snapshot::Severity fail_on) {
    if (!report.drift.empty() || !report.unreadable.empty() || !report.stale.empty()) return true;
    for (const auto& g : report.findings)
        if (g.severity >= fail_on) return true;
    return false;
}

}  // namespace cudoctor::fleet
