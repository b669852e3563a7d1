// One step of a 3-point smoothing filter over a block's tile, in place in shared memory.
extern "C" __global__ void smooth_tile(const int *in, int *out) {
    __shared__ int tile[128];
    int t = threadIdx.x;
    int last = blockDim.x - 1;
    tile[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    int left = t > 0 ? t - 1 : 0;
    int right = t < last ? t + 1 : last;
    tile[t] = (tile[left] + tile[t] + tile[right]) / 3;
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = tile[t];
}
