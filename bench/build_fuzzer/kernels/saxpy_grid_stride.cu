// y = a * x + y over n elements with a grid-stride loop: each element is read and written by
// exactly one thread whatever the launch shape, so the kernel is race-free (bench_build_fuzzer:
// executions per second of a built fuzz target under the inferred spec).
__global__ void saxpy_grid_stride(int n, float a, const float *x, float *y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
