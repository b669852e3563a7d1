/* gpurace-suite
 * category: other/barrier-divergence
 * expect: barrier-divergence
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: the condition is uniform within each warp but not within the block; warp 1 skips the barrier warp 0 waits at.
 */
extern "C" __global__ void divergence_one_warp(const int* in, int* out)
{
    int t = threadIdx.x;
    if (t / 32 == 0)
        __syncthreads();                    // mark: barrier
    out[t] = in[t] + 1;                     // mark: store
}
