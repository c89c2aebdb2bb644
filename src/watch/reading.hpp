#pragma once
// What one sample of the GPUs holds: per GPU and per process, as NVML answered. A value NVML
// could not give (symbol missing in an old driver, call failed, not supported on this board)
// is absent, never a made-up zero.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudoctor::watch {

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
    std::string library;
    std::vector<std::string> missing;
    std::string trouble;
};

}  // namespace cudoctor::watch
