/* gpurace-suite
 * category: examples/host-code
 * expect: no-race
 * launch: grid=4 block=256 shared=0
 * args: n=1000 a=2 x=buffer(float,1000,iota) y=buffer(float,1000,ones)
 * warp-model: both
 * modes: both
 * note: a complete CUDA program with host code; gpurace compiles it with nvcc -ptx and checks the kernel, which writes each y[i] once.
 */
// A whole program (host code, main, <<<>>>): NVRTC cannot compile it, so gpurace falls back to
// `nvcc -ptx`. Run:  gpurace info examples/host_saxpy.cu
#include <cstdio>
#include <cuda_runtime.h>

extern "C" __global__ void saxpy(int n, float a, const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];             // mark: store
}

int main()
{
    const int n = 1000;
    float *x = nullptr, *y = nullptr;
    cudaMallocManaged(&x, n * sizeof(float));
    cudaMallocManaged(&y, n * sizeof(float));
    for (int i = 0; i < n; ++i) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
    cudaDeviceSynchronize();
    printf("y[10] = %f\n", y[10]);
    cudaFree(x);
    cudaFree(y);
    return 0;
}
