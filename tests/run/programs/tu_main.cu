// tu_main.cu — with tu_kernels.cu, a race-free program of two translation units, each with its
// own device code and its own __device__ variable named `scale_dev`. main() fills a vector
// here, then calls into the other unit, whose kernels print from the device and square it.
// Prints what it computed and checks it. Used by tests/run.
#include <cstdio>

void add_then_square(int *d, int n, int offset); // tu_kernels.cu

__device__ int scale_dev;

__global__ void init_scaled(int *d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = i * scale_dev;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    int *d;
    if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess) return 1;
    int scale = 3;
    cudaMemcpyToSymbol(scale_dev, &scale, sizeof scale);
    init_scaled<<<(n + 63) / 64, 64>>>(d, n);
    add_then_square(d, n, 2);
    int *h = new int[n];
    cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
    long long total = 0;
    int bad = 0;
    for (int i = 0; i < n; i++) {
        total += h[i];
        bad += h[i] != (3 * i + 2) * (3 * i + 2);
    }
    printf("n=%d total=%lld %s\n", n, total, bad ? "FAIL" : "ok");
    delete[] h;
    cudaFree(d);
    return bad ? 1 : 0;
}
