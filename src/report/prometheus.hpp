#pragma once
// The Prometheus text exposition format (version 0.0.4, which node_exporter's textfile collector
// reads): `# HELP` and `# TYPE` once per family, then its samples, label values escaped. The
// families and their labels are those of report/metrics.hpp; `check --format prometheus` writes
// one machine's, `fleet` every node's with a `node` label first.
#include <array>
#include <cstdint>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "report/metrics.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor::report {

/// Writes families and samples to a stream. A family's samples must follow its begin(); a label
/// set written twice in one family is written once (the first value wins), as a scraper would
/// reject the second.
class MetricWriter {
  public:
    explicit MetricWriter(std::ostream& out) : m_out(out) {}
    /// The HELP and TYPE lines of `family`; with `node_label` the samples carry "node" first.
    void begin(const MetricFamily& family, bool node_label = false);
    /// One sample of the current family: `labels` are the values in the family's label order
    /// (the node first where begin() said so), escaped here. A wrong number of values is a
    /// programming error and throws std::logic_error.
    void sample(const std::vector<std::string>& labels, double value);

  private:
    std::ostream& m_out;
    const MetricFamily* m_family = nullptr;
    bool m_node = false;
    std::set<std::string> m_seen;
};

/// A number as the format writes it: integers without a fraction, "NaN", "+Inf", "-Inf", else
/// the shortest text that reads back as the same double.
std::string metric_value(double value);

/// What the metrics say about one machine, computed once from its Snapshot and findings (fleet
/// keeps this per node instead of the whole Snapshot).
struct MachineMetrics {
    struct FindingCount {
        std::string rule;
        snapshot::Severity severity = snapshot::Severity::info;
        snapshot::Layer layer = snapshot::Layer::platform;
        int count = 0;
    };
    std::optional<std::int64_t> taken_at;  ///< seconds since the epoch; nullopt when the snapshot has no time
    std::vector<FindingCount> findings;    ///< by rule, severity and layer, in first-seen order
    std::array<int, 3> by_severity{};      ///< info, warning, error
    bool gpu_code_runnable = true;         ///< false where report::cannot_run_reason gives one
    /// Per family of metric::kInfoFamilies, the label values of each of its samples.
    std::array<std::vector<std::vector<std::string>>, metric::kInfoFamilies.size()> info;
};

/// The metrics of `snap` with `findings` (check's are snap.findings; fleet passes the findings
/// it computed). Unknown facts are empty label values; a driver_info sample only where some
/// driver part (module or library) was seen.
[[nodiscard]] MachineMetrics machine_metrics(const snapshot::Snapshot& snap, const std::vector<snapshot::Finding>& findings);

/// One machine's metrics under a node name ("" for check: no node label).
struct NamedMetrics {
    std::string node;
    const MachineMetrics* metrics = nullptr;
};

/// The per-machine families for `machines`, each family once with every machine's samples; a
/// node label when `with_node`. Families with no sample are still declared (HELP/TYPE), so a
/// scraper sees the names even on a machine without, say, cuDNN.
void write_machine_metrics(MetricWriter& writer, const std::vector<NamedMetrics>& machines, bool with_node);

/// `check --format prometheus`: the families of metrics.hpp for one machine (snap.findings).
void render_prometheus(const snapshot::Snapshot& snap, std::ostream& out);

}  // namespace cudoctor::report
