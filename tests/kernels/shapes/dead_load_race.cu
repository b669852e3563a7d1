/* gpurace-suite
 * category: shapes/compile-mode
 * expect: race
 * race-class: race
 * race-lines: 17 18
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: source-faithful
 * expect-optimized: no-race
 * note: a neighbour load whose value is never used races in the source-level program; the optimizer deletes the load, so the optimized build has no race.
 */
extern "C" __global__ void dead_load_race(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];                           // mark: store
    int unused = s[(t + 1) % 64];
    (void)unused;
    __syncthreads();                        // mark: barrier
    out[t] = s[t];                          // mark: load
}
