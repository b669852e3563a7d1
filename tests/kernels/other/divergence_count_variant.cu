/* gpurace-suite
 * category: other/barrier-divergence
 * expect: barrier-divergence
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: only odd threads execute __syncthreads_count.
 */
extern "C" __global__ void divergence_count_variant(const int* in, int* out)
{
    int t = threadIdx.x;
    int n = 0;
    if (t & 1)
        n = __syncthreads_count(in[t] > 4); // mark: barrier
    out[t] = n;                             // mark: store
}
