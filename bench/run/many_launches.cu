// many_launches.cu — the shape of a test suite or an iterative solver: 20000 small launches
// (one block of 64 threads, a few instructions each) between copies. For bench_run.
#include <cstdio>

__global__ void relax(float *x, const float *b, int n, float w) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = (1.0f - w) * x[i] + w * b[i];
}

int main(int argc, char **argv) {
    int launches = argc > 1 ? atoi(argv[1]) : 20000;
    const int n = 64;
    float *x, *b, h[n];
    for (int i = 0; i < n; i++) h[i] = (float)i;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&b, n * sizeof(float));
    cudaMemset(x, 0, n * sizeof(float));
    cudaMemcpy(b, h, sizeof h, cudaMemcpyHostToDevice);
    for (int k = 0; k < launches; k++) relax<<<1, n>>>(x, b, n, 0.5f);
    cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost);
    printf("x[63] = %.3f after %d launches\n", h[63], launches);
    cudaFree(x);
    cudaFree(b);
    return 0;
}
