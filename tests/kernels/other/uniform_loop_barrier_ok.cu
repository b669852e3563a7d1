/* gpurace-suite
 * category: other/barrier-divergence
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64) rounds=3
 * warp-model: both
 * modes: both
 * note: a barrier in a loop whose trip count is a kernel argument is reached equally often by all threads.
 */
extern "C" __global__ void uniform_loop_barrier_ok(const int* in, int* out, int rounds)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int v = in[t];
    for (int r = 0; r < rounds; ++r) {
        s[t] = v;                           // mark: store
        __syncthreads();                    // mark: barrier
        v += s[(t + 5) % 64];               // mark: load
        __syncthreads();                    // mark: barrier
    }
    out[t] = v;                             // mark: store
}
