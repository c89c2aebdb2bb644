#pragma once
// `watch report DIR --format prometheus`: the watch's summary as metrics (report/metrics.hpp):
// each GPU's memory at the last sample, the Xid reports per GPU and code, every series' memory
// trend and whether it is a leak, and the launched command's CUDA errors.
#include <ostream>

#include "watch/summary.hpp"

namespace cudoctor::watch {

/// Writes the summary in the Prometheus text exposition format.
void render_prometheus(const Summary& s, std::ostream& out);

}  // namespace cudoctor::watch
