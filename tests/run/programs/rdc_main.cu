// rdc_main.cu — with rdc_bins.cu, a program built with relocatable device code (-rdc=true):
// the kernel here calls a __device__ function of the other unit and counts on a __device__
// variable defined there. The bin update in rdc_bins.cu is not atomic: threads that land in one
// bin race. Prints the bins' total and the call count. Used by tests/run.
#include <cstdio>

extern __device__ void add_to_bin(int *bins, int value); // rdc_bins.cu
extern __device__ unsigned int calls;                    // rdc_bins.cu

__global__ void histogram(const int *values, int *bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) add_to_bin(bins, values[i]);
    if (i == 0) atomicAdd(&calls, 1u);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 64;
    int *h = new int[n];
    for (int i = 0; i < n; i++) h[i] = (i * 7) % 5;
    int *values, *bins;
    if (cudaMalloc(&values, n * sizeof(int)) != cudaSuccess) return 1;
    if (cudaMalloc(&bins, 8 * sizeof(int)) != cudaSuccess) return 1;
    cudaMemcpy(values, h, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(bins, 0, 8 * sizeof(int));
    histogram<<<(n + 31) / 32, 32>>>(values, bins, n);
    int out[8];
    unsigned int ncalls = 0;
    cudaMemcpy(out, bins, sizeof out, cudaMemcpyDeviceToHost);
    cudaMemcpyFromSymbol(&ncalls, calls, sizeof ncalls);
    int total = 0;
    for (int b = 0; b < 8; b++) total += out[b];
    printf("n=%d binned=%d calls=%u\n", n, total, ncalls);
    delete[] h;
    cudaFree(values);
    cudaFree(bins);
    return 0;
}
