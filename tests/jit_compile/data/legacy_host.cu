// A benchmark-style program whose host code predates this toolkit: cudaDeviceProp::clockRate
// and cudaThreadSynchronize are gone, HELPER_CHECK comes from a file that includes this one.
#include <cstdio>
#include <cuda_runtime.h>

#define BLOCK 128

__global__ void vec_shift(const float *in, float *out, int n) {
    __shared__ float tile[BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : 0.0f;
    if (i < n && threadIdx.x > 0) out[i] = tile[threadIdx.x - 1];   // no __syncthreads()
}

static void report_device() {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("%s at %d kHz\n", prop.name, prop.clockRate);
}

int main(int argc, char **argv) {
    int n = 1 << 12;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    report_device();
    vec_shift<<<n / BLOCK, BLOCK>>>(in, out, n);
    cudaThreadSynchronize();
    HELPER_CHECK(cudaGetLastError());
    return 0;
}
