// Shared and global memory, 2D indexing, a barrier.
extern "C" __global__ void transpose(const float *in, float *out, int w, int h) {
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    if (x < w && y < h)
        tile[threadIdx.y][threadIdx.x] = in[y * w + x]; // MARK:tile_store
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    if (x < h && y < w)
        out[y * h + x] = tile[threadIdx.x][threadIdx.y]; // MARK:tile_load
}

extern "C" __global__ void racy_sum(int *data, int n) {
    __shared__ int acc;
    if (threadIdx.x == 0) acc = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        acc += data[i]; // MARK:racy_add
    __syncthreads();
    if (threadIdx.x == 0) data[0] = acc;
}
