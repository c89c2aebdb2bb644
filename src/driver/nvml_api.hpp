#pragma once
// NVML as nvml.h declares it (NVML_API_VERSION 12/13): the types and function signatures every
// call into libnvidia-ml uses, here once. Symbols are looked up by the caller, in its own child,
// through find_symbol, so each query still records exactly the functions it needed and lacked.
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

}  // namespace cudoctor::driver::nvml
