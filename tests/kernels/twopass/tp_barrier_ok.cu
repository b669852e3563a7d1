/* gpurace-suite
 * category: twopass/race-free
 * expect: no-race
 * launch: grid=2 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,128)
 * warp-model: both
 * modes: both
 * note: the read-write pattern of tp_rw_shared_race separated by barriers: every warp reads what the other wrote in an earlier barrier interval.
 */
// Value-based two-pass checking (--oracle twopass): the same exchange made safe by barriers.
extern "C" __global__ void tp_barrier_ok(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t] * 2;
    __syncthreads();                        // mark: barrier
    int v = s[(t + 32) % 64];
    __syncthreads();
    s[t] = v + 1;
    __syncthreads();
    out[blockIdx.x * 64 + t] = s[63 - t];   // mark: store
}
