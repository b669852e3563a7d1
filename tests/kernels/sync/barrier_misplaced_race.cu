/* gpurace-suite
 * category: sync/barrier
 * expect: race
 * race-class: race
 * race-lines: 18 19
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: the barrier sits before the shared store instead of between store and load, so it orders nothing useful.
 */
extern "C" __global__ void barrier_misplaced_race(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int v = in[t] * 3;
    __syncthreads();                        // mark: barrier
    s[t] = v;                               // mark: store
    out[t] = s[63 - t];                     // mark: load
}
