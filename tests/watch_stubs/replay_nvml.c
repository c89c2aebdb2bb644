/* A stand-in libnvidia-ml.so.1 that replays a recorded series: NVML's real symbol names and
 * struct layouts (nvml.h, NVML_API_VERSION 12/13), one GPU, answers taken from one row of a
 * series file per sample.
 *
 *   CUDOCTOR_FAKE_NVML_SERIES   the series (tests/watch_stubs/series/NAME.tsv): a header row, then
 *                               one row per sample, tab-separated:
 *                               used_mib util_gpu util_mem temp_c power_w sm_mhz mem_mhz processes kernel
 *                               processes: "pid:MiB pid:MiB …"; kernel: a kernel-log line the
 *                               driver writes at that sample ("" for none)
 *   CUDOCTOR_FAKE_NVML_CURSOR   a file holding the number of the next row. Each nvmlInit_v2
 *                               takes one row and advances it, so one sample = one init, which
 *                               is how cudoctor watch samples (a fresh isolated child each time).
 *                               Past the last row the last row repeats.
 *   CUDOCTOR_FAKE_KERNEL_LOG    the file the row's kernel line is appended to (a kern.log).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct StubDevice* nvmlDevice_t;
typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
    unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

enum { kSuccess = 0, kUninitialized = 1, kInvalidArgument = 2, kNotSupported = 3, kInsufficientSize = 7, kUnknown = 999 };
enum { kMaxProcesses = 32 };

struct StubDevice {
    int index;
};
static struct StubDevice g_device;
static int g_initialised;
static struct {
    unsigned long long used_mib;
    unsigned util_gpu, util_mem, temp, power_w, sm_mhz, mem_mhz;
    unsigned count;
    unsigned pids[kMaxProcesses];
    unsigned long long mib[kMaxProcesses];
} g_row;

static const unsigned long long kMiB = 1024ULL * 1024ULL;
static const unsigned long long kTotalMiB = 81559; /* an 80 GB board */

/* The n-th tab-separated field of `line` (0-based) copied into out. */
static void field(const char* line, int n, char* out, size_t size) {
    const char* p = line;
    for (int i = 0; i < n && p; ++i) {
        p = strchr(p, '\t');
        if (p) ++p;
    }
    out[0] = '\0';
    if (!p) return;
    size_t len = strcspn(p, "\t\n\r");
    if (len >= size) len = size - 1;
    memcpy(out, p, len);
    out[len] = '\0';
}

static long read_cursor(const char* path) {
    long row = 0;
    FILE* f = path ? fopen(path, "r") : NULL;
    if (f) {
        if (fscanf(f, "%ld", &row) != 1) row = 0;
        fclose(f);
    }
    return row;
}

static void write_cursor(const char* path, long row) {
    FILE* f = path ? fopen(path, "w") : NULL;
    if (!f) return;
    fprintf(f, "%ld\n", row);
    fclose(f);
}

/* Loads row `cursor` (the last row when past the end); appends its kernel line. 0 on success. */
static int load_row(void) {
    const char* series = getenv("CUDOCTOR_FAKE_NVML_SERIES");
    const char* cursor_path = getenv("CUDOCTOR_FAKE_NVML_CURSOR");
    FILE* f = series ? fopen(series, "r") : NULL;
    if (!f) return -1;
    const long wanted = read_cursor(cursor_path);
    static char line[4096], chosen[4096];
    long row = -1; /* the header row is skipped */
    int have = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        if (row >= 0) {
            strcpy(chosen, line);
            have = 1;
            if (row == wanted) break;
        }
        ++row;
    }
    fclose(f);
    if (!have) return -1;
    const int fresh = row == wanted;
    write_cursor(cursor_path, wanted + 1);
    char cell[2048];
    field(chosen, 0, cell, sizeof cell);
    g_row.used_mib = strtoull(cell, NULL, 10);
    field(chosen, 1, cell, sizeof cell);
    g_row.util_gpu = (unsigned)strtoul(cell, NULL, 10);
    field(chosen, 2, cell, sizeof cell);
    g_row.util_mem = (unsigned)strtoul(cell, NULL, 10);
    field(chosen, 3, cell, sizeof cell);
    g_row.temp = (unsigned)strtoul(cell, NULL, 10);
    field(chosen, 4, cell, sizeof cell);
    g_row.power_w = (unsigned)strtoul(cell, NULL, 10);
    field(chosen, 5, cell, sizeof cell);
    g_row.sm_mhz = (unsigned)strtoul(cell, NULL, 10);
    field(chosen, 6, cell, sizeof cell);
    g_row.mem_mhz = (unsigned)strtoul(cell, NULL, 10);
    field(chosen, 7, cell, sizeof cell);
    g_row.count = 0;
    for (char* tok = strtok(cell, " "); tok && g_row.count < kMaxProcesses; tok = strtok(NULL, " ")) {
        char* colon = strchr(tok, ':');
        if (!colon) continue;
        g_row.pids[g_row.count] = (unsigned)strtoul(tok, NULL, 10);
        g_row.mib[g_row.count] = strtoull(colon + 1, NULL, 10);
        ++g_row.count;
    }
    field(chosen, 8, cell, sizeof cell);
    const char* kernel_log = getenv("CUDOCTOR_FAKE_KERNEL_LOG");
    if (fresh && cell[0] && kernel_log) {
        FILE* k = fopen(kernel_log, "a");
        if (k) {
            fprintf(k, "%s\n", cell);
            fclose(k);
        }
    }
    return 0;
}

nvmlReturn_t nvmlInit_v2(void) {
    if (load_row() != 0) return kUnknown;
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
        case kNotSupported: return "Not Supported";
        case kInsufficientSize: return "Insufficient Size";
        default: return "Unknown Error";
    }
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
    if (!g_initialised) return kUninitialized;
    if (!count) return kInvalidArgument;
    *count = 1;
    return kSuccess;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
    if (!g_initialised) return kUninitialized;
    if (!device || index >= 1) return kInvalidArgument;
    *device = &g_device;
    return kSuccess;
}

#define CHECK_DEVICE(d)                                \
    do {                                               \
        if (!g_initialised) return kUninitialized;     \
        if ((d) != &g_device) return kInvalidArgument; \
    } while (0)

static nvmlReturn_t copy_text(char* out, unsigned int length, const char* text) {
    if (!out) return kInvalidArgument;
    if (strlen(text) + 1 > length) return kInsufficientSize;
    strcpy(out, text);
    return kSuccess;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* name, unsigned int length) {
    CHECK_DEVICE(d);
    return copy_text(name, length, "NVIDIA H100 80GB HBM3");
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* uuid, unsigned int length) {
    CHECK_DEVICE(d);
    return copy_text(uuid, length, "GPU-9a1c0b7e-3d52-4f0e-8c11-5e6f7a8b9c0d");
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t* pci) {
    CHECK_DEVICE(d);
    if (!pci) return kInvalidArgument;
    memset(pci, 0, sizeof *pci);
    strcpy(pci->busIdLegacy, "0000:18:00.0");
    strcpy(pci->busId, "00000000:18:00.0");
    pci->bus = 0x18;
    pci->pciDeviceId = 0x233010de;
    return kSuccess;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
    CHECK_DEVICE(d);
    if (!m) return kInvalidArgument;
    m->total = kTotalMiB * kMiB;
    m->used = g_row.used_mib * kMiB;
    m->free = m->total - m->used;
    return kSuccess;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t* u) {
    CHECK_DEVICE(d);
    if (!u) return kInvalidArgument;
    u->gpu = g_row.util_gpu;
    u->memory = g_row.util_mem;
    return kSuccess;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, unsigned int sensor, unsigned int* temp) {
    CHECK_DEVICE(d);
    if (sensor != 0 || !temp) return kInvalidArgument;
    *temp = g_row.temp;
    return kSuccess;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int* milliwatts) {
    CHECK_DEVICE(d);
    if (!milliwatts) return kInvalidArgument;
    *milliwatts = g_row.power_w * 1000;
    return kSuccess;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, unsigned int type, unsigned int* mhz) {
    CHECK_DEVICE(d);
    if (!mhz) return kInvalidArgument;
    switch (type) {
        case 0: /* NVML_CLOCK_GRAPHICS */
        case 1: /* NVML_CLOCK_SM */ *mhz = g_row.sm_mhz; return kSuccess;
        case 2: /* NVML_CLOCK_MEM */ *mhz = g_row.mem_mhz; return kSuccess;
        default: return kNotSupported;
    }
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int* count, nvmlProcessInfo_t* infos) {
    CHECK_DEVICE(d);
    if (!count) return kInvalidArgument;
    if (*count < g_row.count || (!infos && g_row.count)) {
        *count = g_row.count;
        return kInsufficientSize;
    }
    for (unsigned i = 0; i < g_row.count; ++i) {
        infos[i].pid = g_row.pids[i];
        infos[i].usedGpuMemory = g_row.mib[i] * kMiB;
        infos[i].gpuInstanceId = 0xFFFFFFFF;
        infos[i].computeInstanceId = 0xFFFFFFFF;
    }
    *count = g_row.count;
    return kSuccess;
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t d, unsigned int* count, nvmlProcessInfo_t* infos) {
    CHECK_DEVICE(d);
    (void)infos;
    if (!count) return kInvalidArgument;
    *count = 0;
    return kSuccess;
}
