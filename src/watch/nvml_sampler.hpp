#pragma once
// One sample of every GPU through libnvidia-ml, taken in an isolated child (verify's
// run_child: dlopen, nvmlInit_v2, the queries, nvmlShutdown, then the child exits), so a hanging
// or crashing driver costs one sample, never the watch. The library is found as verify finds
// it (verify/library_search.hpp: CUDOCTOR_DRIVER_LIBRARY_PATH first).
#include <chrono>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "watch/reading.hpp"

namespace cudoctor::watch {

/// Samples memory (used, total), utilisation, temperature, power, SM and memory clocks of each
/// GPU (at most 64), and the compute and graphics processes on each with their memory (at most
/// 256 per GPU). A library that does not load, a failed nvmlInit_v2, a hang past `timeout` or a
/// crash give a Reading with `trouble` set and what was read before it; Errc::io only when no
/// child could be started.
[[nodiscard]] Expected<Reading> sample_nvml(const std::vector<std::string>& candidates, std::chrono::milliseconds timeout);

}  // namespace cudoctor::watch
