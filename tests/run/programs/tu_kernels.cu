// tu_kernels.cu — the second translation unit of tu_main.cu: its own `scale_dev`, a kernel
// that prints from the device, and a templated square.
#include <cstdio>

static __device__ int scale_dev; // not tu_main.cu's: each unit has its own device code

__global__ void add_offset(int *d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) printf("device: adding %d to %d elements\n", scale_dev, n);
    if (i < n) d[i] += scale_dev;
}

template <typename T>
__global__ void square(T *d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = d[i] * d[i];
}

void add_then_square(int *d, int n, int offset) {
    cudaMemcpyToSymbol(scale_dev, &offset, sizeof offset);
    add_offset<<<(n + 31) / 32, 32>>>(d, n);
    cudaDeviceSynchronize(); // the device's printf shows at a synchronization point
    square<int><<<(n + 127) / 128, 128>>>(d, n);
}
