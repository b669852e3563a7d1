/* gpurace-suite
 * category: other/barrier-divergence
 * expect: no-race
 * launch: grid=2 block=64 shared=0
 * args: in=buffer(int,128,iota) out=buffer(int,128)
 * warp-model: both
 * modes: both
 * note: the branch depends on blockIdx only, so all threads of a block agree on taking the barrier.
 */
extern "C" __global__ void block_uniform_barrier_ok(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int i = blockIdx.x * 64 + t;
    s[t] = in[i];                           // mark: store
    if (blockIdx.x == 1) {
        __syncthreads();                    // mark: barrier
        out[i] = s[63 - t];                 // mark: load
    } else {
        out[i] = s[t] * 2;                  // mark: store
    }
}
