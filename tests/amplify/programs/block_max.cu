// The largest sample of a signal: each block reduces its part in shared memory to one value, and
// the host takes the largest of the blocks' values. The tree reduction has no barrier between its
// steps, so a thread can read its partner's slot before the partner has written this step's
// value: the program's own launch races. On a GPU the warps of a block usually run close enough
// together that the result comes out right, and the test passes.
#include <cmath>
#include <cstdio>
#include <vector>

__global__ void block_max(const float *x, float *partial, int n) {
    __shared__ float best[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    best[threadIdx.x] = i < n ? x[i] : -INFINITY;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) best[threadIdx.x] = fmaxf(best[threadIdx.x], best[threadIdx.x + stride]); // mark: step
        // missing: __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = best[0];
}

int main() {
    const int n = 4096, threads = 256, blocks = (n + threads - 1) / threads;
    std::vector<float> x(n), partial(blocks);
    float want = -INFINITY;
    for (int i = 0; i < n; i++) {
        x[i] = sinf(0.01f * (float)i) * (float)(i % 97);
        want = fmaxf(want, x[i]);
    }
    float *d_x, *d_partial;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMalloc(&d_partial, blocks * sizeof(float));
    cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    block_max<<<blocks, threads>>>(d_x, d_partial, n);
    cudaMemcpy(partial.data(), d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_x);
    cudaFree(d_partial);
    float got = -INFINITY;
    for (int b = 0; b < blocks; b++) got = fmaxf(got, partial[b]);
    bool ok = got == want;
    printf("block_max: %g (expected %g), test %s\n", got, want, ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
