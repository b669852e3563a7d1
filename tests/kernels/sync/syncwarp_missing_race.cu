/* gpurace-suite
 * category: sync/warp
 * expect: race
 * race-class: race
 * race-lines: 17 18
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: its
 * expect-lockstep: no-race
 * modes: both
 * note: a rotate through shared memory inside one warp without __syncwarp.
 */
extern "C" __global__ void syncwarp_missing_race(const int* in, int* out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    s[lane] = in[lane] + 1;                 // mark: store
    out[lane] = s[(lane + 1) & 31];         // mark: load
}
