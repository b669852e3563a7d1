// big_launch.cu — one large launch: 512 blocks of 256 threads, each thread running a
// polynomial loop over its element (arithmetic-heavy, race-free). For bench_run.
#include <cstdio>

__global__ void poly(float *y, const float *x, int n, int terms) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], acc = 0.0f, p = 1.0f;
    for (int k = 0; k < terms; k++) {
        acc += p / (k + 1);
        p *= v;
    }
    y[i] = acc;
}

int main(int argc, char **argv) {
    int terms = argc > 1 ? atoi(argv[1]) : 32;
    const int n = 512 * 256;
    float *x, *y, *h = new float[n];
    for (int i = 0; i < n; i++) h[i] = (float)(i % 100) / 200.0f;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
    poly<<<n / 256, 256>>>(y, x, n, terms);
    cudaMemcpy(h, y, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("y[99] = %.4f\n", h[99]);
    cudaFree(x);
    cudaFree(y);
    delete[] h;
    return 0;
}
