// A small "extension" for the `kernels` tests: six kernels (plain, static, extern "C", three
// template instances in a namespace) and one device function that is no kernel (with -rdc it
// stays a function of its own in the cubin). tests/integration/kernels_artifacts_test.cpp lists
// them; fuzz/corpus/cubin holds pieces of its nvcc output.
namespace ops {
template <typename T, int N>
__global__ void scale_kernel(T* x, T a, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * a + T(N);
}
__device__ __noinline__ float twice(float v) { return v * 2.0f; }
}  // namespace ops

extern "C" __global__ void add_one(float* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = ops::twice(x[i]) + 1.0f;
}

__global__ void reduce_sum(const float* x, float* out, int n) {
    __shared__ float s[256];
    s[threadIdx.x] = static_cast<int>(threadIdx.x) < n ? x[threadIdx.x] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0;
        for (int i = 0; i < 256; ++i) t += s[i];
        *out = t;
    }
}

template __global__ void ops::scale_kernel<float, 1>(float*, float, int);
template __global__ void ops::scale_kernel<double, 2>(double*, double, int);
template __global__ void ops::scale_kernel<int, 3>(int*, int, int);

// Internal linkage: its launch stub is local, its device name the plain mangled one.
static __global__ void fill_zero(float* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 0.0f;
}

void launch_add_one(float* x, int n) {
    add_one<<<1, 256>>>(x, n);
    fill_zero<<<1, 256>>>(x, n);
}
