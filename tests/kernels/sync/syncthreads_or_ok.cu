/* gpurace-suite
 * category: sync/barrier-reduce
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: __syncthreads_or orders the shared stores before the loads that follow it.
 */
extern "C" __global__ void syncthreads_or_ok(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t] + 5;                       // mark: store
    int any_big = __syncthreads_or(in[t] > 60);        // mark: barrier
    out[t] = s[(t + 7) % 64] * (any_big + 1);          // mark: store
}
