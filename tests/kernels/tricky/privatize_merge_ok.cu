/* gpurace-suite
 * category: tricky/privatize
 * expect: no-race
 * launch: grid=2 block=64 shared=0
 * args: in=buffer(int,128,random) bins=buffer(int,16)
 * warp-model: both
 * modes: both
 * note: a per-block shared histogram is built with atomics, then merged into the global histogram after a barrier.
 */
extern "C" __global__ void privatize_merge_ok(const int* in, int* bins)
{
    __shared__ int local[16];
    int t = threadIdx.x;
    if (t < 16)
        local[t] = 0;                       // mark: store
    __syncthreads();                        // mark: barrier
    atomicAdd(&local[in[blockIdx.x * 64 + t] & 15], 1);   // mark: atomic
    __syncthreads();                        // mark: barrier
    if (t < 16)
        atomicAdd(&bins[t], local[t]);      // mark: atomic
}
