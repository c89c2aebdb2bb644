/* A stand-in libnvidia-ml.so.1: NVML's real symbol names (nvml.h, NVML_API_VERSION 13;
 * versioned names where the header #defines them) answering as the machine chosen by
 * STUB_BEHAVIOUR would. NVML ignores CUDA_VISIBLE_DEVICES, like the real library. */
#include <stdio.h>
#include <string.h>

#include "stub_behaviour.h"

typedef int nvmlReturn_t;
typedef struct StubDevice* nvmlDevice_t;
typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;

struct StubDevice {
    int index;
};
static struct StubDevice g_device;
static int g_initialised;

enum { kSuccess = 0, kUninitialized = 1, kInvalidArgument = 2, kInsufficientSize = 7, kDriverNotLoaded = 9, kLibRmVersionMismatch = 18 };

#if STUB_BEHAVIOUR == STUB_OLD_DRIVER
static const char kDriverVersion[] = "470.256.02";
static const int kCudaVersion = 11040;
#else
static const char kDriverVersion[] = "580.65.06";
static const int kCudaVersion = 13000;
#endif

nvmlReturn_t nvmlInit_v2(void) {
#if STUB_BEHAVIOUR == STUB_HANG
    stub_hang();
#elif STUB_BEHAVIOUR == STUB_SEGFAULT
    stub_crash();
#elif STUB_BEHAVIOUR == STUB_RM_MISMATCH
    return kLibRmVersionMismatch;
#endif
    g_initialised = 1;
    return kSuccess;
}

nvmlReturn_t nvmlInitWithFlags(unsigned int flags) {
    (void)flags;
    return nvmlInit_v2();
}

nvmlReturn_t nvmlShutdown(void) {
    if (!g_initialised) return kUninitialized;
    g_initialised = 0;
    return kSuccess;
}

const char* nvmlErrorString(nvmlReturn_t result) {
    switch (result) {
        case kSuccess: return "Success";
        case kUninitialized: return "Uninitialized";
        case kInvalidArgument: return "Invalid Argument";
        case kInsufficientSize: return "Insufficient Size";
        case kDriverNotLoaded: return "Driver Not Loaded";
        case kLibRmVersionMismatch: return "Driver/library version mismatch";
        default: return "Unknown Error";
    }
}

static nvmlReturn_t copy_text(char* out, unsigned int length, const char* text) {
    if (!g_initialised) return kUninitialized;
    if (!out) return kInvalidArgument;
    if (strlen(text) + 1 > length) return kInsufficientSize;
    strcpy(out, text);
    return kSuccess;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) { return copy_text(version, length, kDriverVersion); }

nvmlReturn_t nvmlSystemGetNVMLVersion(char* version, unsigned int length) {
    char text[80];
    snprintf(text, sizeof text, "%d.%s", kCudaVersion / 1000, kDriverVersion);
    return copy_text(version, length, text);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* v) {
    if (!g_initialised) return kUninitialized;
    if (!v) return kInvalidArgument;
    *v = kCudaVersion;
    return kSuccess;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* v) { return nvmlSystemGetCudaDriverVersion(v); }

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
    if (!g_initialised) return kUninitialized;
    if (!count) return kInvalidArgument;
#if STUB_BEHAVIOUR == STUB_NO_DEVICE
    *count = 0;
#else
    *count = 1;
#endif
    return kSuccess;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
    unsigned int count = 0;
    nvmlReturn_t rc = nvmlDeviceGetCount_v2(&count);
    if (rc != kSuccess) return rc;
    if (!device || index >= count) return kInvalidArgument;
    g_device.index = (int)index;
    *device = &g_device;
    return kSuccess;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* name, unsigned int length) {
    if (d != &g_device) return kInvalidArgument;
    return copy_text(name, length, "NVIDIA GeForce RTX 4090");
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* uuid, unsigned int length) {
    if (d != &g_device) return kInvalidArgument;
    return copy_text(uuid, length, "GPU-5f3c2d1e-8a4b-4c6d-9e0f-112233445566");
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int* major, int* minor) {
    if (!g_initialised) return kUninitialized;
    if (d != &g_device || !major || !minor) return kInvalidArgument;
    *major = 8;
    *minor = 9;
    return kSuccess;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
    if (!g_initialised) return kUninitialized;
    if (d != &g_device || !m) return kInvalidArgument;
    m->total = 25757220864ULL;
    m->used = 363855872ULL;
    m->free = m->total - m->used;
    return kSuccess;
}
