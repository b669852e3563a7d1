// Adds the two halves of one allocation: a and b point into the same buffer, n elements apart,
// as programs do with one cudaMalloc for several arrays. The recording must keep them one buffer
// (a witness of version 2), so what the launch reads is what was recorded.
#include <cstdio>

__global__ void add_halves(const float *a, const float *b, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

int main() {
    const int n = 256;
    float host[2 * n], sum[n];
    for (int i = 0; i < 2 * n; i++) host[i] = (float)i;
    float *d_both, *d_out;
    cudaMalloc(&d_both, sizeof host);
    cudaMalloc(&d_out, sizeof sum);
    cudaMemcpy(d_both, host, sizeof host, cudaMemcpyHostToDevice);
    add_halves<<<n / 64, 64>>>(d_both, d_both + n, d_out, n);
    cudaMemcpy(sum, d_out, sizeof sum, cudaMemcpyDeviceToHost);
    bool ok = true;
    for (int i = 0; i < n; i++) ok = ok && sum[i] == host[i] + host[i + n];
    cudaFree(d_both);
    cudaFree(d_out);
    printf("add_halves: test %s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
