/* SAXPY with a grid-stride loop.
 * intended: any launch
 * expect: clean */
extern "C" __global__ void saxpy_grid_stride(int n, float a, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
