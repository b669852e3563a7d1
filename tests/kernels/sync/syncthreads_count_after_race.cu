/* gpurace-suite
 * category: sync/barrier-reduce
 * expect: race
 * race-class: race
 * race-lines: 17 18
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: the count barrier comes before the shared exchange, which then has no barrier of its own.
 */
extern "C" __global__ void syncthreads_count_after_race(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int n = __syncthreads_count(in[t] & 1); // mark: barrier
    s[t] = in[t] + n;                       // mark: store
    out[t] = s[(t + 32) % 64];              // mark: load
}
