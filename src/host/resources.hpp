#pragma once
// The memory and cores of a machine, as a build sees them: how many parallel compiler jobs fit.
// `opencv cmake` sizes -j with it, `explain` ties a killed build to it, and the WSL memory rule
// measures .wslconfig's limit against one job. Read through the Host, so a fixture root answers.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "host/host.hpp"

namespace cudoctor::host {

/// What one parallel nvcc job of a CUDA source build (OpenCV's CUDA modules, a PyTorch
/// extension) can take: -j is bounded by memory / this, and a machine below two of them cannot
/// build at -j 2.
inline constexpr std::uint64_t kBytesPerNvccJob = 3ull << 30;  // 3 GiB

struct BuildResources {
    std::optional<std::uint64_t> mem_available_kib;  ///< /proc/meminfo MemAvailable (else MemTotal)
    std::string mem_source;                          ///< "MemAvailable" | "MemTotal" | ""
    std::optional<unsigned> cores;                   ///< online CPUs
    std::string cores_source;                        ///< "/sys/devices/system/cpu/online" | "/proc/cpuinfo" | ""
};

/// Reads /proc/meminfo and /sys/devices/system/cpu/online (else counts "processor" lines of
/// /proc/cpuinfo). Missing or garbage files leave the fact unset; never fails.
BuildResources read_build_resources(const host::Host& host);

/// Parses a CPU list like "0-15" or "0,2-3,8": how many CPUs; nullopt for garbage or a count
/// above 65536.
std::optional<unsigned> count_cpu_list(std::string_view list);

/// The value in KiB of a /proc/meminfo field ("MemAvailable:   16318384 kB"); nullopt when absent.
std::optional<std::uint64_t> meminfo_kib(std::string_view meminfo, std::string_view field);

/// Parallel nvcc jobs: about 3 GiB each (OpenCV's CUDA files peak near that in cicc/ptxas), no
/// more than the cores, at least 1. `why` says what decided it.
unsigned parallel_jobs(const BuildResources& resources, std::string& why);

}  // namespace cudoctor::host
