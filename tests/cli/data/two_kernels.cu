// Two kernels: one extern "C" with a restrict pointer, one template instance.
extern "C" __global__ void __launch_bounds__(128) saxpy(float a, const float *__restrict__ x,
                                                         float *y, int n /* count */) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

template <typename T, int TILE>
__global__ void transpose(T *out, const T *in, int width) {
    __shared__ T tile[TILE][TILE + 1];
    int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[y * width + x];
    __syncthreads();
    out[x * width + y] = tile[y][x];
}
template __global__ void transpose<double, 16>(double *, const double *, int);
