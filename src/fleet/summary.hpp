#pragma once
// One node of a fleet, reduced to what `fleet` compares: a few strings per layer and the
// findings' ids. A whole snapshot (tens of kilobytes, evidence included) is dropped as soon as
// its summary is made, so 10,000 nodes cost a few megabytes.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kb/kb.hpp"
#include "report/prometheus.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor::fleet {

/// The layers a fleet is compared on, in report order.
enum class Layer { os, gpus, driver, toolkits, cudnn, frameworks };
inline constexpr std::array kLayers{Layer::os, Layer::gpus, Layer::driver, Layer::toolkits, Layer::cudnn, Layer::frameworks};
inline constexpr std::size_t kLayerCount = kLayers.size();

/// "os", "gpus", "driver", "toolkits", "cudnn", "frameworks".
std::string_view to_string(Layer layer);

/// A finding as the fleet keeps it: the rule and its headline, not the evidence.
struct NodeFinding {
    std::string id;
    snapshot::Severity severity = snapshot::Severity::info;
    snapshot::Layer layer = snapshot::Layer::platform;
    std::string title;
};

struct NodeSummary {
    std::string file;                            ///< the snapshot file it came from
    std::string hostname;                        ///< from the snapshot ("" for an older one without)
    std::string name;                            ///< how reports name it: hostname, else the file name without ".json"
    std::string taken_at;                        ///< as written, "" when absent
    std::optional<std::int64_t> taken_at_epoch;  ///< parsed taken_at; nullopt when absent or garbage
    std::string tool_version;
    /// Per layer, the sorted items that make its configuration: {"GeForce RTX 4090 ×2"},
    /// {"550.54.14"}, {"11.8", "12.4 (default)"}; empty when the layer has nothing.
    std::array<std::vector<std::string>, kLayerCount> layers;
    std::vector<NodeFinding> findings;
    /// What `fleet --format prometheus` says of this node (its facts as metric labels); only
    /// when summarize() was asked for it (a few kilobytes a node that text and JSON never use).
    std::optional<report::MachineMetrics> metrics;

    const std::vector<std::string>& items(Layer layer) const { return layers[static_cast<std::size_t>(layer)]; }
};

/// The items of a layer joined for display: "11.8, 12.4 (default)"; "none" when empty.
std::string layer_value(const std::vector<std::string>& items);

/// Reduces a snapshot: its layers as sorted items, today's rules over it (the KB of the machine
/// reading it, so an old snapshot gets new rules), and with `with_metrics` its metrics. Never
/// fails: unknown facts are empty items.
NodeSummary summarize(const snapshot::Snapshot& snap, const kb::Kb& kb, std::string file, bool with_metrics = false);
/// summarize() with the findings today's rules give for `snap` already at hand (read_fleet keeps
/// them for the configurations it has seen).
NodeSummary summarize(const snapshot::Snapshot& snap, const std::vector<snapshot::Finding>& findings, std::string file,
                      bool with_metrics = false);

}  // namespace cudoctor::fleet
