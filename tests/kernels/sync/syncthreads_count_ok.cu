/* gpurace-suite
 * category: sync/barrier-reduce
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: __syncthreads_count is a full block barrier, so the neighbour read after it is ordered.
 */
extern "C" __global__ void syncthreads_count_ok(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];                           // mark: store
    int positives = __syncthreads_count(in[t] > 10);   // mark: barrier
    out[t] = s[(t + 1) % 64] + positives;   // mark: load
}
