/* gpurace-suite
 * category: sync/vote
 * expect: race
 * race-class: race
 * race-lines: 17 19
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: its
 * expect-lockstep: no-race
 * modes: both
 * note: __activemask only reports which lanes are converged; unlike the .sync collectives it orders nothing.
 */
extern "C" __global__ void activemask_no_sync_race(const int* in, int* out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    s[lane] = in[lane];                     // mark: store
    unsigned active = __activemask();
    out[lane] = s[(lane + 1) & 31] + __popc(active);   // mark: load
}
