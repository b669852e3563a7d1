/* gpurace-suite
 * category: warp/legacy
 * expect: race
 * race-class: volatile-race
 * race-lines: 17 18
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: warp-synchronous assumptions never held across warps: the volatile exchange with the other warp races even under lockstep.
 */
extern "C" __global__ void legacy_across_warps_race(const int* in, int* out)
{
    __shared__ int s[64];
    volatile int* vs = s;
    int t = threadIdx.x;
    vs[t] = in[t];                          // mark: store
    out[t] = vs[t ^ 32];                    // mark: load
}
