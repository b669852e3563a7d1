// The racy launch bench_hb_memory measures: a block-wide tree reduction in shared memory whose
// rounds are not separated by a barrier (a common bug), with a global input read by every
// thread and one output per block.
extern "C" __global__ void block_sum_race(const float *in, float *out)
{
    __shared__ float s[1024];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned d = blockDim.x / 2; d > 0; d /= 2) {
        if (t < d)
            s[t] += s[t + d];
        // missing __syncthreads(): the next round reads sums other warps may not have written
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}
