// Loads the first n elements of a block's tile; the barrier sits inside the guard, so threads
// past n never reach it.
extern "C" __global__ void load_prefix(const int *in, int *out, int n) {
    __shared__ int tile[256];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    if (t < n) {
        tile[t] = in[g];
        __syncthreads();
    }
    if (t < n) out[g] = tile[n - 1 - t];
}
