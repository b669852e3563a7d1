#include <cuda_pipeline.h>
extern "C" __global__ void cpasync(const float4 *g, float4 *out) {
    __shared__ float4 buf[128];
    __pipeline_memcpy_async(&buf[threadIdx.x], &g[blockIdx.x * 128 + threadIdx.x], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[blockIdx.x * 128 + threadIdx.x] = buf[127 - threadIdx.x];
}
extern "C" __global__ void named_barriers(int *p) {
    __shared__ int s[64];
    if (threadIdx.x < 64) {
        s[threadIdx.x] = threadIdx.x;
        asm volatile("bar.sync 1, 64;");
        p[threadIdx.x] = s[63 - threadIdx.x];
    } else {
        asm volatile("bar.arrive 2, 64;");
    }
    int c = __syncthreads_count(p[0] > 0);
    int o = __syncthreads_or(c > 3);
    p[threadIdx.x] += c + o;
    unsigned long long t = clock64();
    p[1] = (int)t + threadIdx.x % 7 + (int)(1e10 / (double)(threadIdx.x + 1));
}
