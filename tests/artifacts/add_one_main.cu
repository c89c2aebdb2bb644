#include <cstdio>
__global__ void add_one(int* x) { x[threadIdx.x] += 1; }
int main() {
    int* d = nullptr;
    if (cudaMalloc(&d, 32 * sizeof(int)) != cudaSuccess) { std::puts("no device"); return 0; }
    add_one<<<1, 32>>>(d);
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
