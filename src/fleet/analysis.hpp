#pragma once
// What a fleet looks like: the reference configuration per layer (the majority, or a known-good
// baseline node), every node that differs from it and how, the findings grouped by rule, and
// the snapshots that are stale, duplicated or unreadable.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "fleet/reader.hpp"
#include "fleet/summary.hpp"

namespace cudoctor::fleet {

/// One configuration a layer has somewhere in the fleet, and the nodes (indices into
/// FleetReport::nodes) that have it.
struct Variant {
    std::vector<std::string> items;
    std::vector<std::size_t> nodes;
};

struct LayerReport {
    Layer layer = Layer::os;
    std::vector<std::string> reference;  ///< the majority's (or the baseline's) items
    bool tie = false;                    ///< two configurations share the largest count
    std::size_t agree = 0;               ///< nodes that have the reference configuration
    std::vector<Variant> variants;       ///< most common first
};

/// How one node's layer differs from the reference.
struct Difference {
    Layer layer = Layer::os;
    std::vector<std::string> items;      ///< what the node has
    std::vector<std::string> reference;  ///< what the reference has
    std::vector<std::string> missing;    ///< in the reference, not on the node
    std::vector<std::string> extra;      ///< on the node, not in the reference
};

struct NodeDrift {
    std::size_t node = 0;
    std::vector<Difference> differences;
};

/// One rule's findings across the fleet.
struct RuleGroup {
    std::string id;
    snapshot::Severity severity = snapshot::Severity::info;  ///< the worst on any node
    snapshot::Layer layer = snapshot::Layer::platform;
    std::string title;
    std::vector<std::size_t> nodes;
    /// Each node's own severity for this rule (the worst of its findings there), parallel to
    /// `nodes`: a warning on one node is not an error because another node has an error.
    std::vector<snapshot::Severity> node_severities;
    /// True when the nodes do not all have the same severity.
    bool mixed_severity() const;
};

struct StaleNode {
    std::size_t node = 0;
    std::optional<std::int64_t> age_seconds;  ///< before the newest snapshot; nullopt: no time stamp
};

struct AnalyseOptions {
    /// Older than the newest snapshot by more than this is stale; 0 turns the check off.
    std::int64_t stale_after_seconds = 7 * 86400;
    /// Compare against this node instead of the majority.
    std::optional<NodeSummary> baseline;
};

struct FleetReport {
    std::vector<NodeSummary> nodes;  ///< readable, de-duplicated, in file order
    std::vector<Unreadable> unreadable;
    std::optional<NodeSummary> baseline;
    std::array<LayerReport, kLayerCount> layers;
    std::vector<NodeDrift> drift;     ///< nodes that differ from the reference, in node order
    std::vector<RuleGroup> findings;  ///< errors first, then by how many nodes have it
    std::vector<StaleNode> stale;
    std::optional<std::int64_t> newest;  ///< time of the newest snapshot
    std::int64_t stale_after_seconds = 0;
};

/// Builds the report. Two snapshots of one host name keep the newer (by taken_at, then the
/// later file name); the other is listed as unreadable with code "duplicate". Nodes without a
/// host name whose file names collide are named by their whole path. Never fails: an empty
/// fleet gives an empty report.
FleetReport analyse(std::vector<std::variant<NodeSummary, Unreadable>> results, const AnalyseOptions& options);

/// Whether the fleet needs attention: a node differs, a file is unreadable or stale, or a
/// finding is at least `fail_on` ("error" | "warning").
bool has_problems(const FleetReport& report, snapshot::Severity fail_on);

}  // namespace cudoctor::fleet
