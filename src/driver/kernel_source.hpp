#pragma once
// The programs level 2 builds. One kernel everywhere: every thread i < n writes i * 3 + 7, into
// memory poisoned first with kPoison, so a thread that did not run (or a launch that did
// nothing) shows as a wrong value, never as a lucky zero.
#include <string_view>

namespace cudoctor::driver {

inline constexpr unsigned kPoison = 0xDEADBEEFu;
inline constexpr unsigned kThreads = 1u << 20;
inline constexpr unsigned kBlock = 256;

/// The value thread i writes.
constexpr unsigned expected_value(unsigned i) { return i * 3u + 7u; }

/// The kernel alone, for NVRTC.
inline constexpr std::string_view kKernelSource = R"cu(
extern "C" __global__ void cudoctor_fill(unsigned int* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i * 3u + 7u;
}
)cu";

/// A whole program for nvcc: `check kernel` launches the kernel and checks every value;
/// `check gemm LIBCUBLAS` loads cuBLAS (dlopen, so no cuBLAS headers or link step are needed)
/// and compares a 64×64×64 SGEMM with a CPU reference. Every outcome is one line starting with
/// "cudoctor-check: " — "kernel ok N", "kernel wrong W N I V", "gemm ok ERR",
/// "gemm wrong ERR", "gemm unavailable WHY", or "error WHAT CODE NAME: TEXT".
inline constexpr std::string_view kProgramSource = R"cu(
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include <dlfcn.h>
#include <cuda_runtime.h>

extern "C" __global__ void cudoctor_fill(unsigned int* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i * 3u + 7u;
}

static int failed(const char* what, cudaError_t e) {
    std::printf("cudoctor-check: error %s %d %s: %s\n", what, (int)e, cudaGetErrorName(e), cudaGetErrorString(e));
    return 1;
}

static int check_kernel() {
    const unsigned n = 1u << 20;
    unsigned* d = nullptr;
    cudaError_t e = cudaMalloc(&d, n * sizeof(unsigned));
    if (e != cudaSuccess) return failed("cudaMalloc", e);
    if ((e = cudaMemset(d, 0xEF, n * sizeof(unsigned))) != cudaSuccess) return failed("cudaMemset", e);
    cudoctor_fill<<<(n + 255) / 256, 256>>>(d, n);
    if ((e = cudaGetLastError()) != cudaSuccess) return failed("launch", e);
    if ((e = cudaDeviceSynchronize()) != cudaSuccess) return failed("cudaDeviceSynchronize", e);
    std::vector<unsigned> h(n);
    if ((e = cudaMemcpy(h.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost)) != cudaSuccess) return failed("cudaMemcpy", e);
    cudaFree(d);
    unsigned wrong = 0, first = 0, value = 0;
    for (unsigned i = 0; i < n; ++i) {
        if (h[i] != i * 3u + 7u) {
            if (wrong++ == 0) { first = i; value = h[i]; }
        }
    }
    if (wrong) std::printf("cudoctor-check: kernel wrong %u %u %u %u\n", wrong, n, first, value);
    else std::printf("cudoctor-check: kernel ok %u\n", n);
    return wrong ? 2 : 0;
}

typedef int (*Create)(void**);
typedef int (*Destroy)(void*);
typedef int (*Sgemm)(void*, int, int, int, int, int, const float*, const float*, int, const float*, int, const float*, float*, int);

static int check_gemm(const char* library) {
    void* lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!lib) { std::printf("cudoctor-check: gemm unavailable %s\n", dlerror()); return 3; }
    Create create = (Create)dlsym(lib, "cublasCreate_v2");
    Destroy destroy = (Destroy)dlsym(lib, "cublasDestroy_v2");
    Sgemm sgemm = (Sgemm)dlsym(lib, "cublasSgemm_v2");
    if (!create || !destroy || !sgemm) { std::printf("cudoctor-check: gemm unavailable cublasSgemm_v2 missing\n"); return 3; }
    const int n = 64;
    std::vector<float> a(n * n), b(n * n), c(n * n, 0.f), ref(n * n, 0.f);
    for (int i = 0; i < n * n; ++i) { a[i] = (float)((i * 7) % 13) / 13.f - 0.5f; b[i] = (float)((i * 5) % 11) / 11.f - 0.5f; }
    for (int col = 0; col < n; ++col)
        for (int row = 0; row < n; ++row) {
            double s = 0;
            for (int k = 0; k < n; ++k) s += (double)a[k * n + row] * b[col * n + k];
            ref[col * n + row] = (float)s;
        }
    float *da, *db, *dc;
    cudaError_t e;
    if ((e = cudaMalloc(&da, n * n * 4)) != cudaSuccess) return failed("cudaMalloc", e);
    if ((e = cudaMalloc(&db, n * n * 4)) != cudaSuccess) return failed("cudaMalloc", e);
    if ((e = cudaMalloc(&dc, n * n * 4)) != cudaSuccess) return failed("cudaMalloc", e);
    cudaMemcpy(da, a.data(), n * n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), n * n * 4, cudaMemcpyHostToDevice);
    cudaMemset(dc, 0xFF, n * n * 4);
    void* handle = nullptr;
    int status = create(&handle);
    if (status != 0) { std::printf("cudoctor-check: error cublasCreate_v2 %d CUBLAS_STATUS: cuBLAS could not start\n", status); return 1; }
    const float one = 1.f, zero = 0.f;
    status = sgemm(handle, 0, 0, n, n, n, &one, da, n, db, n, &zero, dc, n);
    if (status != 0) { std::printf("cudoctor-check: error cublasSgemm_v2 %d CUBLAS_STATUS: the GEMM failed\n", status); return 1; }
    if ((e = cudaDeviceSynchronize()) != cudaSuccess) return failed("cudaDeviceSynchronize", e);
    cudaMemcpy(c.data(), dc, n * n * 4, cudaMemcpyDeviceToHost);
    destroy(handle);
    double worst = 0;
    for (int i = 0; i < n * n; ++i) worst = std::fmax(worst, std::fabs((double)c[i] - ref[i]));
    const bool ok = worst <= 1e-3;  // TF32 tensor cores stay well inside this for |values| < 1
    std::printf("cudoctor-check: gemm %s %.3g\n", ok ? "ok" : "wrong", worst);
    return ok ? 0 : 2;
}

int main(int argc, char** argv) {
    if (argc >= 2 && std::strcmp(argv[1], "gemm") == 0) return check_gemm(argc >= 3 ? argv[2] : "libcublas.so");
    return check_kernel();
}
)cu";

}  // namespace cudoctor::driver
