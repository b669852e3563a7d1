// Sums each block's 2 * blockDim.x elements in shared memory (blockDim.x a power of two, at
// most 256). The tree loop lacks the barrier between its steps.
extern "C" __global__ void block_sum(const float *in, float *out, int n) {
    __shared__ float partial[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    float v = 0.0f;
    if (i < n) v = in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    partial[tid] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) partial[tid] += partial[tid + stride];
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}
