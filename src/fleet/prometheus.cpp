#include "fleet/prometheus.hpp"

#include <stdexcept>

#include "report/metrics.hpp"
#include "report/prometheus.hpp"

namespace cudoctor::fleet {

void render_prometheus(const FleetReport& report, std::ostream& out) {
    report::MetricWriter writer(out);
    std::vector<report::NamedMetrics> machines;
    machines.reserve(report.nodes.size());
    for (const auto& n : report.nodes) {
        if (!n.metrics) throw std::logic_error("fleet::render_prometheus: " + n.file + " was read without metrics");
        machines.push_back({n.name, &*n.metrics});
    }
    report::write_machine_metrics(writer, machines, true);

    writer.begin(report::metric::fleet_nodes);
    writer.sample({}, static_cast<double>(report.nodes.size()));
    writer.begin(report::metric::fleet_unreadable);
    writer.sample({}, static_cast<double>(report.unreadable.size()));
    writer.begin(report::metric::fleet_node_drift);
    for (const auto& d : report.drift)
        for (const auto& diff : d.differences) writer.sample({report.nodes[d.node].name, std::string(to_string(diff.layer))}, 1);
    writer.begin(report::metric::fleet_node_stale);
    for (const auto& s : report.stale) writer.sample({report.nodes[s.node].name}, 1);
}

}  // namespace cudoctor::fleet
