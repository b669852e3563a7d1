/* gpurace-suite
 * category: other/barrier-divergence
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64) n=3
 * warp-model: both
 * modes: both
 * note: the barrier sits under a condition on a kernel argument, which is the same for every thread.
 */
extern "C" __global__ void uniform_scalar_barrier_ok(const int* in, int* out, int n)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];                           // mark: store
    if (n > 0)
        __syncthreads();                    // mark: barrier
    out[t] = (n > 0) ? s[63 - t] : in[t];   // mark: store
}
