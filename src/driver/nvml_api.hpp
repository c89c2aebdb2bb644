#pragma once
// NVML as nvml.h declares it (NVML_API_VERSION 12/13): the types and function signatures every
// call into libnvidia-ml uses, here once, and the binding of the functions every query needs.
// Symbols are looked up in the calling child through find_symbol, so each query records exactly
// the functions it needed and the driver lacked.
#include <nlohmann/json.hpp>

#include "driver/child_log.hpp"

namespace cudoctor::driver::nvml {

using Device = void*;
struct Memory {
    unsigned long long total, free, used;
};
struct Utilization {
    unsigned gpu, memory;
};
struct PciInfo {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
};
struct ProcessInfo {  // nvmlProcessInfo_t, the _v2/_v3 layout
    unsigned pid;
    unsigned long long used_gpu_memory;
    unsigned gpu_instance_id, compute_instance_id;
};

inline constexpr unsigned long long kValueNotAvailable = ~0ULL;
inline constexpr unsigned kClockSm = 1, kClockMem = 2, kTemperatureGpu = 0;
inline constexpr unsigned kMaxDevices = 64;

using Init = int (*)();                                      // nvmlInit_v2, nvmlShutdown
using ErrorString = const char* (*)(int);                    // nvmlErrorString
using SystemText = int (*)(char*, unsigned);                 // nvmlSystemGetDriverVersion
using SystemInt = int (*)(int*);                             // nvmlSystemGetCudaDriverVersion
using Count = int (*)(unsigned*);                            // nvmlDeviceGetCount_v2
using HandleByIndex = int (*)(unsigned, Device*);            // nvmlDeviceGetHandleByIndex_v2
using DeviceText = int (*)(Device, char*, unsigned);         // nvmlDeviceGetName, nvmlDeviceGetUUID
using Capability = int (*)(Device, int*, int*);              // nvmlDeviceGetCudaComputeCapability
using PciInfoOf = int (*)(Device, PciInfo*);                 // nvmlDeviceGetPciInfo_v3
using MemoryInfo = int (*)(Device, Memory*);                 // nvmlDeviceGetMemoryInfo
using UtilizationOf = int (*)(Device, Utilization*);         // nvmlDeviceGetUtilizationRates
using Temperature = int (*)(Device, unsigned, unsigned*);    // nvmlDeviceGetTemperature
using Power = int (*)(Device, unsigned*);                    // nvmlDeviceGetPowerUsage
using Clock = int (*)(Device, unsigned, unsigned*);          // nvmlDeviceGetClockInfo
using Processes = int (*)(Device, unsigned*, ProcessInfo*);  // nvmlDeviceGet{Compute,Graphics}RunningProcesses_v3

/// The functions every query uses: start and stop NVML, error text, and walking the devices.
struct Core {
    Init init = nullptr;
    Init shutdown = nullptr;
    ErrorString error_string = nullptr;
    Count count = nullptr;
    HandleByIndex handle_by_index = nullptr;
    DeviceText name = nullptr;
    DeviceText uuid = nullptr;
    MemoryInfo memory = nullptr;
};

/// Child side: looks up Core's functions in `lib`; each one missing is null and joins `missing`.
inline Core bind_core(const ChildLog& log, void* lib, nlohmann::json& missing) {
    auto sym = [&](const char* name) { return find_symbol(log, lib, name, missing); };
    Core c;
    c.init = reinterpret_cast<Init>(sym("nvmlInit_v2"));
    c.shutdown = reinterpret_cast<Init>(sym("nvmlShutdown"));
    c.error_string = reinterpret_cast<ErrorString>(sym("nvmlErrorString"));
    c.count = reinterpret_cast<Count>(sym("nvmlDeviceGetCount_v2"));
    c.handle_by_index = reinterpret_cast<HandleByIndex>(sym("nvmlDeviceGetHandleByIndex_v2"));
    c.name = reinterpret_cast<DeviceText>(sym("nvmlDeviceGetName"));
    c.uuid = reinterpret_cast<DeviceText>(sym("nvmlDeviceGetUUID"));
    c.memory = reinterpret_cast<MemoryInfo>(sym("nvmlDeviceGetMemoryInfo"));
    return c;
}

}  // namespace cudoctor::driver::nvml
