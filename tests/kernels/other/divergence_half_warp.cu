/* gpurace-suite
 * category: other/barrier-divergence
 * expect: barrier-divergence
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: only lanes 0-15 reach __syncthreads; the rest of the block never arrives.
 */
extern "C" __global__ void divergence_half_warp(const int* in, int* out)
{
    int t = threadIdx.x;
    if (t < 16)
        __syncthreads();                    // mark: barrier
    out[t] = in[t] * 2;                     // mark: store
}
