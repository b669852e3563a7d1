// slices.cu — launches larger than the detector numbers threads (2^20): a race-free 2D
// five-point stencil over 4096 x 2048 cells, one thread per cell (8 M threads), and a 1D shift
// of 4 M elements where each thread reads its right neighbour's element while that thread
// writes it (a race between adjacent threads of one block). `gpurace run --backend gpu` checks
// both in slices of the grid; the stencil must stay clean and the shift must be reported at the
// marked lines. Prints a checksum so runs with and without gpurace can be compared.
#include <cstdio>

__global__ void stencil(const float *in, float *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
    int i = y * w + x;
    out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
}

__global__ void shift_left(float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1 < n) {
        float right = a[i + 1]; // mark: read
        a[i] = right;           // mark: write
    }
}

int main() {
    const int w = 4096, h = 2048, n = 1 << 22;
    float *in, *out, *a;
    cudaMalloc(&in, sizeof(float) * w * h);
    cudaMalloc(&out, sizeof(float) * w * h);
    cudaMalloc(&a, sizeof(float) * n);
    cudaMemset(in, 0, sizeof(float) * w * h);
    cudaMemset(out, 0, sizeof(float) * w * h);
    cudaMemset(a, 0, sizeof(float) * n);
    dim3 block(32, 8), grid(w / 32, h / 8);
    stencil<<<grid, block>>>(in, out, w, h);
    shift_left<<<n / 256, 256>>>(a, n);
    float sum = 0, host[16];
    cudaMemcpy(host, out + w * 7, sizeof host, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 16; i++) sum += host[i];
    printf("checksum %.3f status %s\n", sum, cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
