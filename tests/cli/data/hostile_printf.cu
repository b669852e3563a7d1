#include <cstdio>

// Prints a greeting and then n lines per thread; each thread writes its own element (no race).
__global__ void chatty(int *out, int n) {
    printf("hello from thread %d\n", threadIdx.x);
    for (int i = 0; i < n; i++) printf("line %d of thread %d\n", i, threadIdx.x);
    out[threadIdx.x] = 1;
}
