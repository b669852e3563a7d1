// Local arrays, 3-D indexing, constant/global variables with initializers, printf.
#include <cstdio>
__constant__ int ctab[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__device__ int gtab[4] = {10, 20, 30, 40};
__device__ float gscale = 1.5f;

extern "C" __global__ void local_array(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a[16];
    for (int k = 0; k < 16; k++) a[k] = in[i] * k + ctab[k & 7];
    int idx = in[i] & 15;
    out[i] = a[idx] + a[(idx * 7) & 15] + gtab[i & 3] + (int)(gscale * 2.0f);
}

extern "C" __global__ void index3d(int *out) {
    int bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    int tx = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    int nb = blockDim.x * blockDim.y * blockDim.z;
    out[bx * nb + tx] = bx * 1000 + tx * 10 + (threadIdx.z ^ blockIdx.y);
}

extern "C" __global__ void hello(int n) {
    if (threadIdx.x < 2) printf("thread %d of %d: %s %.2f %ld\n", threadIdx.x, n, "ok", 0.5 * n,
                                (long)n * 1000000000L);
}

// A long but terminating loop per thread: a collatz-style walk with a fixed trip count (the
// optimizer cannot fold it), so a big launch executes far more than 200 million instructions.
extern "C" __global__ void long_walk(unsigned *out, int iters) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = i | 1u;
    for (int k = 0; k < iters; k++) x = (x & 1u) ? 3u * x + 1u : x >> 1;
    out[i] = x;
}
