#pragma once
// The calls verify makes into libcuda, libnvidia-ml and libcudnn. Each query runs in its own
// isolated child (host::run_isolated) with a time limit: the library is dlopen'ed there and
// only there, so a hanging or crashing driver costs one child. The answers are plain data.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "driver/child_log.hpp"

namespace cudoctor::driver {

struct DriverDevice {
    std::string name;
    int cc_major = -1, cc_minor = -1;
    int multiprocessors = 0;
    int clock_khz = 0, memory_clock_khz = 0, bus_width_bits = 0;
    std::uint64_t memory_bytes = 0;
};

/// libcuda: cuDriverGetVersion, cuInit(0), the devices and their deviceQuery facts.
struct DriverApiAnswer {
    ChildAnswer child;
    std::vector<std::string> tried;     ///< dlopen failures, in order
    std::string library;                ///< the file that loaded ("" when none)
    std::vector<std::string> missing;   ///< symbols the library lacks
    std::optional<int> init_result;     ///< cuInit's CUresult
    std::string init_name, init_text;   ///< from cuGetErrorName / cuGetErrorString ("" when they give NULL)
    std::optional<int> driver_version;  ///< cuDriverGetVersion: 13000 = CUDA 13.0
    std::optional<int> device_count;
    std::vector<DriverDevice> devices;
};
Expected<DriverApiAnswer> query_driver_api(const std::vector<std::string>& candidates, std::chrono::milliseconds timeout);

struct NvmlDevice {
    std::string name, uuid;
    int cc_major = -1, cc_minor = -1;
    std::uint64_t memory_total = 0;
};

/// libnvidia-ml: nvmlInit_v2, the driver version, the CUDA version the driver runs, the devices.
struct NvmlAnswer {
    ChildAnswer child;
    std::vector<std::string> tried;
    std::string library;
    std::vector<std::string> missing;
    std::optional<int> init_result;
    std::string init_text;            ///< nvmlErrorString
    std::string driver_version;       ///< "580.65.06"
    std::optional<int> cuda_version;  ///< nvmlSystemGetCudaDriverVersion
    std::optional<unsigned> device_count;
    std::vector<NvmlDevice> devices;
};
Expected<NvmlAnswer> query_nvml(const std::vector<std::string>& candidates, std::chrono::milliseconds timeout);

/// libcudnn: its version, the CUDA runtime it was built with, and (when `create`) whether a
/// handle can be made.
struct CudnnAnswer {
    ChildAnswer child;
    std::vector<std::string> tried;
    std::string library;
    std::vector<std::string> missing;
    std::optional<std::size_t> version;         ///< 91900 = 9.19.0
    std::optional<std::size_t> cudart_version;  ///< 13010 = CUDA 13.1
    std::optional<int> create_result;           ///< cudnnCreate's status
    std::string create_text;                    ///< cudnnGetErrorString
};
Expected<CudnnAnswer> query_cudnn(const std::string& library, bool create, std::chrono::milliseconds timeout);

/// "12.4" for 12040; "" for 0 or less.
std::string cuda_version_text(int encoded);
/// "9.19.0" for 91900, "8.9.7" for 8907.
std::string cudnn_version_text(std::size_t encoded);

}  // namespace cudoctor::driver
