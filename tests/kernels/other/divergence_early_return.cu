/* gpurace-suite
 * category: other/barrier-divergence
 * expect: barrier-divergence
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64) n=48
 * warp-model: both
 * modes: both
 * note: threads past n return before the barrier the remaining threads wait at.
 */
extern "C" __global__ void divergence_early_return(const int* in, int* out, int n)
{
    int t = threadIdx.x;
    if (t >= n)
        return;
    int v = in[t];
    __syncthreads();                        // mark: barrier
    out[t] = v + 1;                         // mark: store
}
