// A whole program: kernel plus host code. NVRTC cannot compile it; nvcc -ptx can.
#include <cstdio>
__global__ void increment(int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += 1;
}
int main() {
    int *d = nullptr;
    cudaMalloc(&d, 64 * sizeof(int));
    increment<<<1, 64>>>(d, 64);
    cudaDeviceSynchronize();
    cudaFree(d);
    printf("done\n");
    return 0;
}
