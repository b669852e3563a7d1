/* gpurace-suite
 * category: sync/barrier-reduce
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: __syncthreads_and orders the shared stores before the mirrored loads.
 */
extern "C" __global__ void syncthreads_and_ok(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];                           // mark: store
    int all_small = __syncthreads_and(in[t] < 100);    // mark: barrier
    out[t] = all_small ? s[63 - t] : 0;     // mark: store
}
