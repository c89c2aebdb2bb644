#pragma once
// `fleet --format prometheus`: every node's check metrics (report/metrics.hpp) with a `node`
// label first, and the fleet's own: nodes, unreadable snapshots, drift per node and layer, stale
// nodes. For a Prometheus that scrapes one textfile written by a fleet job instead of every node.
#include <ostream>

#include "fleet/analysis.hpp"

namespace cudoctor::fleet {

/// Writes the report in the Prometheus text exposition format. Its nodes must have been read
/// with metrics (read_fleet's with_metrics); one without is a programming error (std::logic_error).
void render_prometheus(const FleetReport& report, std::ostream& out);

}  // namespace cudoctor::fleet
