extern __shared__ float dyn[];
extern "C" __global__ void __launch_bounds__(256, 2) stencil3d(const float *in, float *out, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    int l = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    if (x >= nx || y >= ny || z >= nz) return;
    int i = (z * ny + y) * nx + x;
    dyn[l] = in[i];
    __syncthreads();
    float s = dyn[l];
    if (threadIdx.x > 0) s += dyn[l - 1];
    if (threadIdx.x + 1 < blockDim.x) s += dyn[l + 1];
    out[i] = s / 3.0f;
}
extern "C" __global__ void __cluster_dims__(1,1,1) reqd(int *p) { p[threadIdx.x] = threadIdx.x; }
