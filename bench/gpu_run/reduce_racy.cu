// reduce_racy.cu — RACY ON PURPOSE. Sums N floats: each block tree-reduces 512 elements in
// shared memory, a barrier after each level of the tree, but the barrier between the threads'
// first stores to shared memory and the tree's first level is missing: a thread of one warp
// reads the slot of a thread of another warp that may not have stored it yet (a shared-memory
// data race between the store and the read, both lines marked `// RACE`). The block
// sums are added on the host; the check may fail when the race bites.
//   reduce_racy [N=16777216]
#include "gr_bench.h"

#define BLOCK 256

__global__ void block_sums(float *out, const float *in, int n) {
    __shared__ float s[BLOCK];
    int t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * 2 * BLOCK + t;
    float v = i < (size_t)n ? in[i] : 0.0f;
    if (i + BLOCK < (size_t)n) v += in[i + BLOCK];
    s[t] = v; // RACE (the store the read below may miss)
    // missing: __syncthreads();
    for (int half = BLOCK / 2; half > 0; half /= 2) {
        if (t < half) s[t] += s[t + half]; // RACE
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

int main(int argc, char **argv) {
    double t0 = gr_now_ms();
    int n = (int)gr_arg(argc, argv, 1, 16777216);
    int blocks = (int)(((size_t)n + 2 * BLOCK - 1) / (2 * BLOCK));
    float *h_in = (float *)malloc((size_t)n * sizeof(float));
    float *h_sums = (float *)malloc(blocks * sizeof(float));
    GrRng rng(61);
    for (int i = 0; i < n; i++) h_in[i] = rng.range(-1.0f, 1.0f);
    float *in, *sums;
    CK(cudaMalloc(&in, (size_t)n * sizeof(float)));
    CK(cudaMalloc(&sums, blocks * sizeof(float)));
    CK(cudaMemcpy(in, h_in, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    gr_load_kernels(block_sums);
    GrKernelTimer timer;
    timer.begin();
    block_sums<<<blocks, BLOCK>>>(sums, in, n);
    timer.launched();
    timer.end();
    CK(cudaMemcpy(h_sums, sums, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    // The check compares each block's sum (a race may or may not change one).
    bool ok = true;
    for (int b = 0; b < blocks && ok; b++) {
        double want = 0.0;
        for (size_t i = (size_t)b * 2 * BLOCK; i < (size_t)(b + 1) * 2 * BLOCK && i < (size_t)n; i++)
            want += h_in[i];
        if (!(fabs(h_sums[b] - want) <= 1e-3)) {
            fprintf(stderr, "block %d: sum %g, want %g\n", b, h_sums[b], want);
            ok = false;
        }
    }
    CK(cudaFree(in));
    CK(cudaFree(sums));
    free(h_in);
    free(h_sums);
    return gr_finish("reduce_racy", n, ok, timer, t0);
}
