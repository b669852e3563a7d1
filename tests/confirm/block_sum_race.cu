// A block-wide tree reduction in shared memory whose rounds lack the barrier between them: the
// next round reads sums other warps may not have written yet (line 12 against itself). Any
// block size that is a power of two up to 1024; one output per block.
extern "C" __global__ void block_sum_race(const float *in, float *out)
{
    __shared__ float s[1024];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned d = blockDim.x / 2; d > 0; d /= 2) {
        if (t < d)
            s[t] += s[t + d];
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}
