/* gpurace-suite
 * category: examples/host-code
 * expect: race
 * race-class: race
 * race-lines: 46 54
 * launch: grid=4 block=256 shared=0
 * args: in=buffer(int,1024,iota) partial=buffer(i64,4) total=buffer(i64,1) n=1024
 * warp-model: both
 * modes: both
 * kernel: sum_all
 * note: a whole program run by gpurace run: each block's thread 0 writes its partial sum and counts itself done with a relaxed atomicInc, so nothing orders that write before the last block reads it.
 */
// A whole CUDA program whose own test passes while a race sits underneath. It sums 16384
// integers in one launch: every block reduces its part in shared memory, thread 0 of the block
// writes the block's sum to `partial` and counts the block as done with atomicInc; the block
// that counts last adds up `partial`. The program compares the total with the CPU's and prints
// PASSED, here and on a GPU almost every time.
//
// The race: nothing orders a block's write of partial[b] before the last block's read of it.
// A relaxed atomic orders nothing else; the write needs a __threadfence() before the atomicInc
// (and the reader one after it), as in the CUDA threadFenceReduction sample. Without them a GPU
// may show the last block an old partial sum, now and then. From the repository root, after
// scripts/setup.sh:
//   build/gpurace run examples/sum_test.cu
// or build it with the shared CUDA runtime and run the binary as it is:
//   nvcc -cudart shared -lineinfo -o sum_test examples/sum_test.cu
//   build/gpurace run -- ./sum_test
#include <cstdio>
#include <vector>

#define BLOCK 256

__device__ unsigned int blocks_done = 0;

__global__ void sum_all(const int *in, long long *partial, long long *total, int n) {
    __shared__ long long sums[BLOCK];
    __shared__ bool last_block;
    int t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    sums[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (t < stride) sums[t] += sums[t + stride];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = sums[0]; // mark: store
        // missing: __threadfence();
        unsigned int done = atomicInc(&blocks_done, gridDim.x); // mark: atomic
        last_block = done == gridDim.x - 1;
    }
    __syncthreads();
    if (last_block && t == 0) {
        long long sum = 0;
        for (int b = 0; b < gridDim.x; b++) sum += partial[b]; // mark: load
        *total = sum;
    }
}

int main() {
    const int n = 1 << 14, blocks = (n + BLOCK - 1) / BLOCK;
    std::vector<int> values(n);
    long long expected = 0;
    for (int i = 0; i < n; i++) {
        values[i] = (i * 7919) % 1000;
        expected += values[i];
    }
    int *d_in;
    long long *d_partial, *d_total;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_partial, blocks * sizeof(long long));
    cudaMalloc(&d_total, sizeof(long long));
    cudaMemcpy(d_in, values.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    sum_all<<<blocks, BLOCK>>>(d_in, d_partial, d_total, n);
    long long total = -1;
    cudaError_t e = cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost);
    bool ok = e == cudaSuccess && total == expected;
    printf("sum of %d ints: %lld (expected %lld), test %s\n", n, total, expected, ok ? "PASSED" : "FAILED");
    cudaFree(d_in);
    cudaFree(d_partial);
    cudaFree(d_total);
    return ok ? 0 : 1;
}
