// Streaming copy with vectorized global accesses.
#include <cuda_runtime.h>

// Each thread moves one float4 (16 bytes): vectorized 128-bit loads and stores
// halve the number of memory instructions compared with scalar float accesses
// and keep DRAM bandwidth near its peak for large copies.
__global__ void copy_vec4(const float4* __restrict__ src, float4* __restrict__ dst, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        dst[i] = src[i];
    }
}

// Scalar tail for the last n % 4 elements.
__global__ void copy_tail(const float* src, float* dst, int start, int n) {
    int i = start + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}
