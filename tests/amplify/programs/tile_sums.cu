// Per-block sums with a grid-stride loop over tiles staged in shared memory. Thread 0 adds up
// each tile after a barrier, but nothing keeps the other threads from loading the next tile
// while it reads: the race shows only when a block handles two tiles, that is when n is larger
// than the grid's threads. The program's tests use n below that, and pass.
#include <cstdio>
#include <vector>

__global__ void tile_sums(const float *in, float *out, int n) {
    extern __shared__ float tile[];
    float acc = 0.0f;
    for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        int i = base + threadIdx.x;
        tile[threadIdx.x] = i < n ? in[i] : 0.0f; // mark: load
        __syncthreads();
        if (threadIdx.x == 0)
            for (int t = 0; t < blockDim.x; t++) acc += tile[t]; // mark: sum
        // missing: __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

static bool test_sums(int n) {
    const int blocks = 4, threads = 64;
    std::vector<float> in(n), out(blocks);
    for (int i = 0; i < n; i++) in[i] = (float)(i % 10);
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, blocks * sizeof(float));
    cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    tile_sums<<<blocks, threads, threads * sizeof(float)>>>(d_in, d_out, n);
    cudaMemcpy(out.data(), d_out, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    float got = 0, want = 0;
    for (int b = 0; b < blocks; b++) got += out[b];
    for (int i = 0; i < n; i++) want += in[i];
    cudaFree(d_in);
    cudaFree(d_out);
    return got == want;
}

int main() {
    bool ok = test_sums(200) && test_sums(100);
    printf("tile_sums: test %s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
