#pragma once
// One sample of every GPU through libnvidia-ml, for `watch`, taken in an isolated child
// (run_child: dlopen, nvmlInit_v2, the queries, nvmlShutdown, then the child exits), so a hanging
// or crashing driver costs one sample, never the watch. The library is found as verify finds
// it (driver/library_search.hpp: CUDOCTOR_DRIVER_LIBRARY_PATH first). What a sample holds: per
// GPU and per process, as NVML answered. A value NVML could not give (symbol missing in an old
// driver, call failed, not supported on this board) is absent, never a made-up zero.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace cudoctor::driver {

struct GpuReading {
    unsigned index = 0;
    std::string name, uuid;
    std::string pci;                            ///< NVML's bus id, "00000000:01:00.0"
    std::optional<std::uint64_t> memory_used;   ///< bytes
    std::optional<std::uint64_t> memory_total;  ///< bytes
    std::optional<unsigned> util_gpu;           ///< percent
    std::optional<unsigned> util_memory;        ///< percent
    std::optional<unsigned> temperature_c;
    std::optional<unsigned> power_mw;
    std::optional<unsigned> sm_clock_mhz;
    std::optional<unsigned> memory_clock_mhz;
};

struct ProcessReading {
    unsigned gpu = 0;
    unsigned pid = 0;
    std::optional<std::uint64_t> used_memory;  ///< bytes; absent when NVML may not tell (no permission)
    std::string name;                          ///< from /proc/PID/comm, "" when unknown
};

/// One sample. `trouble` says why it is empty or partial ("nvmlInit_v2 hung: …", "libnvidia-ml.so.1
/// not found"); `missing` lists NVML functions this driver lacks.
struct Reading {
    std::vector<GpuReading> gpus;
    std::vector<ProcessReading> processes;
    std::string library;             ///< the file the loader chose, "" when none loaded
    std::vector<std::string> tried;  ///< why each candidate that did not load failed (dlerror)
    std::optional<int> init_result;  ///< nvmlInit_v2's answer when it answered (0: success)
    std::vector<std::string> missing;
    std::string trouble;
};

/// Samples memory (used, total), utilisation, temperature, power, SM and memory clocks of each
/// GPU (at most 64), and the compute and graphics processes on each with their memory (at most
/// 256 per GPU). A library that does not load, a failed nvmlInit_v2, a hang past `timeout` or a
/// crash give a Reading with `trouble` set and what was read before it; Errc::io only when no
/// child could be started.
[[nodiscard]] Expected<Reading> sample_nvml(const std::vector<std::string>& candidates, std::chrono::milliseconds timeout);

}  // namespace cudoctor::driver
