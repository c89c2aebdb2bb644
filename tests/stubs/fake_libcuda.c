/* A stand-in libcuda.so.1: the real driver-API symbol names and signatures (CUDA 13.0 cuda.h,
 * _v2 names where the header #defines them), answering as the machine chosen by STUB_BEHAVIOUR
 * would. Kernel launches are emulated on host memory: cuModuleLoadData accepts PTX text that
 * defines `cudoctor_fill`, and cuLaunchKernel does what that kernel does
 * (out[i] = i * 3 + 7 for every i < n), so the doctor's poison-and-check logic meets a device
 * that can be right or (wrong_result) wrong. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stub_behaviour.h"

typedef int CUresult;
typedef int CUdevice;
typedef uintptr_t CUdeviceptr;
typedef struct StubContext* CUcontext;
typedef struct StubModule* CUmodule;
typedef struct StubFunction* CUfunction;
typedef void* CUstream;

struct StubContext {
    int device;
};
struct StubModule {
    int loaded;
};
struct StubFunction {
    int id;
};

static struct StubContext g_context;
static struct StubModule g_module;
static struct StubFunction g_fill;
static int g_initialised;

enum {
    kSuccess = 0,
    kInvalidValue = 1,
    kNotInitialized = 3,
    kNoDevice = 100,
    kInvalidDevice = 101,
    kInvalidImage = 200,
    kNotFound = 500,
    kSystemDriverMismatch = 803,
    kCompatNotSupported = 804
};

/* Visible GPUs as the real driver counts them: CUDA_VISIBLE_DEVICES lists ordinals or GPU-UUID
 * prefixes; an empty value, -1, or an entry that names no GPU ends the list. */
static int visible_devices(void) {
    const char* v = getenv("CUDA_VISIBLE_DEVICES");
    if (!v) return 1;
    if (strncmp(v, "GPU-5f3c", 8) == 0) return 1;
    return (v[0] == '0' && (v[1] == '\0' || v[1] == ',')) ? 1 : 0;
}

CUresult cuInit(unsigned int flags) {
    if (flags != 0) return kInvalidValue;
#if STUB_BEHAVIOUR == STUB_HANG
    stub_hang();
#elif STUB_BEHAVIOUR == STUB_SEGFAULT
    stub_crash();
#elif STUB_BEHAVIOUR == STUB_RM_MISMATCH
    return kSystemDriverMismatch;
#elif STUB_BEHAVIOUR == STUB_NO_DEVICE
    return kNoDevice;
#elif STUB_BEHAVIOUR == STUB_COMPAT
    return kCompatNotSupported;
#endif
    if (visible_devices() == 0) return kNoDevice;
    g_initialised = 1;
    return kSuccess;
}

CUresult cuDriverGetVersion(int* version) {
    if (!version) return kInvalidValue;
#if STUB_BEHAVIOUR == STUB_OLD_DRIVER
    *version = 11040;
#else
    *version = 13000;
#endif
    return kSuccess;
}

CUresult cuDeviceGetCount(int* count) {
    if (!count) return kInvalidValue;
    if (!g_initialised) return kNotInitialized;
    *count = visible_devices();
    return kSuccess;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
    if (!g_initialised) return kNotInitialized;
    if (!device || ordinal < 0 || ordinal >= visible_devices()) return kInvalidDevice;
    *device = ordinal;
    return kSuccess;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
    if (!g_initialised) return kNotInitialized;
    if (!name || len <= 0) return kInvalidValue;
    if (dev != 0) return kInvalidDevice;
    strncpy(name, "NVIDIA GeForce RTX 4090", (size_t)len - 1);
    name[len - 1] = '\0';
    return kSuccess;
}

CUresult cuDeviceGetAttribute(int* value, int attribute, CUdevice dev) {
    if (!g_initialised) return kNotInitialized;
    if (!value) return kInvalidValue;
    if (dev != 0) return kInvalidDevice;
    switch (attribute) {
        case 75: *value = 8; break;        /* COMPUTE_CAPABILITY_MAJOR */
        case 76: *value = 9; break;        /* COMPUTE_CAPABILITY_MINOR */
        case 16: *value = 128; break;      /* MULTIPROCESSOR_COUNT */
        case 13: *value = 2520000; break;  /* CLOCK_RATE, kHz */
        case 36: *value = 10501000; break; /* MEMORY_CLOCK_RATE, kHz */
        case 37: *value = 384; break;      /* GLOBAL_MEMORY_BUS_WIDTH, bits */
        case 33: *value = 1; break;        /* PCI_BUS_ID */
        case 34: *value = 0; break;        /* PCI_DEVICE_ID */
        case 50: *value = 0; break;        /* PCI_DOMAIN_ID */
        default: *value = 0; break;
    }
    return kSuccess;
}

CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
    if (!g_initialised) return kNotInitialized;
    if (!bytes) return kInvalidValue;
    if (dev != 0) return kInvalidDevice;
    *bytes = (size_t)25393692672ULL;
    return kSuccess;
}

struct ErrorText {
    int code;
    const char* name;
    const char* text;
};
static const struct ErrorText kErrors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "system has unsupported display driver / cuda driver combination"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "forward compatibility was attempted on non supported HW"},
};

static const struct ErrorText* find_error(CUresult code) {
    for (size_t i = 0; i < sizeof kErrors / sizeof kErrors[0]; ++i)
        if (kErrors[i].code == code) return &kErrors[i];
    return 0;
}

CUresult cuGetErrorName(CUresult error, const char** str) {
    const struct ErrorText* e = find_error(error);
    if (!str) return kInvalidValue;
    *str = e ? e->name : 0;
    return e ? kSuccess : kInvalidValue;
}

CUresult cuGetErrorString(CUresult error, const char** str) {
    const struct ErrorText* e = find_error(error);
    if (!str) return kInvalidValue;
    *str = e ? e->text : 0;
    return e ? kSuccess : kInvalidValue;
}

/* ---- contexts, modules, memory, launches (the NVRTC path) ---- */

CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice dev) {
    if (!g_initialised) return kNotInitialized;
    if (!ctx) return kInvalidValue;
    if (dev != 0) return kInvalidDevice;
    g_context.device = dev;
    *ctx = &g_context;
    return kSuccess;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) { return dev == 0 ? kSuccess : kInvalidDevice; }

CUresult cuCtxSetCurrent(CUcontext ctx) { return ctx == &g_context ? kSuccess : kInvalidValue; }

CUresult cuCtxSynchronize(void) { return kSuccess; }

CUresult cuModuleLoadData(CUmodule* module, const void* image) {
    if (!module || !image) return kInvalidValue;
    /* PTX text: a version line and the entry the doctor launches. */
    if (!strstr((const char*)image, ".version") || !strstr((const char*)image, ".entry cudoctor_fill")) return kInvalidImage;
    g_module.loaded = 1;
    *module = &g_module;
    return kSuccess;
}

CUresult cuModuleUnload(CUmodule module) {
    if (module != &g_module) return kInvalidValue;
    g_module.loaded = 0;
    return kSuccess;
}

CUresult cuModuleGetFunction(CUfunction* fn, CUmodule module, const char* name) {
    if (!fn || module != &g_module || !name) return kInvalidValue;
    if (strcmp(name, "cudoctor_fill") != 0) return kNotFound;
    *fn = &g_fill;
    return kSuccess;
}

CUresult cuMemAlloc_v2(CUdeviceptr* ptr, size_t bytes) {
    if (!ptr || bytes == 0) return kInvalidValue;
    void* p = malloc(bytes);
    if (!p) return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    *ptr = (CUdeviceptr)p;
    return kSuccess;
}

CUresult cuMemFree_v2(CUdeviceptr ptr) {
    free((void*)ptr);
    return kSuccess;
}

CUresult cuMemsetD32_v2(CUdeviceptr ptr, unsigned int value, size_t count) {
    unsigned int* p = (unsigned int*)ptr;
    for (size_t i = 0; i < count; ++i) p[i] = value;
    return kSuccess;
}

CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
    if (!dst || !src) return kInvalidValue;
    memcpy(dst, (const void*)src, bytes);
    return kSuccess;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared_bytes,
                        CUstream stream, void** params, void** extra) {
    (void)shared_bytes;
    (void)stream;
    (void)extra;
    if (f != &g_fill || !params) return kInvalidValue;
    unsigned int* out = *(unsigned int**)params[0];
    const unsigned int n = *(const unsigned int*)params[1];
    unsigned long long threads = (unsigned long long)gx * gy * gz * bx * by * bz;
#if STUB_BEHAVIOUR == STUB_WRONG_RESULT
    threads /= 2;
#endif
    for (unsigned long long i = 0; i < threads && i < n; ++i) out[i] = (unsigned int)i * 3u + 7u;
    return kSuccess;
}
