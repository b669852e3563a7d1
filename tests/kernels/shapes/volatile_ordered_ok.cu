/* gpurace-suite
 * category: shapes/volatile
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: volatile shared accesses are separated by __syncthreads, so they are ordered like any others.
 */
extern "C" __global__ void volatile_ordered_ok(const int* in, int* out)
{
    __shared__ int s[64];
    volatile int* vs = s;
    int t = threadIdx.x;
    vs[t] = in[t];                          // mark: store
    __syncthreads();                        // mark: barrier
    out[t] = vs[(t + 17) % 64];             // mark: load
}
