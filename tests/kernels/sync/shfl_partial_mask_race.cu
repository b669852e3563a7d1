/* gpurace-suite
 * category: sync/shuffle
 * expect: race
 * race-class: race
 * race-lines: 17 20
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,16)
 * warp-model: its
 * expect-lockstep: no-race
 * modes: both
 * note: lanes 0-15 shuffle among themselves, which does not order them after the stores of lanes 16-31 they then read.
 */
extern "C" __global__ void shfl_partial_mask_race(const int* in, int* out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    s[lane] = in[lane];                     // mark: store
    if (lane < 16) {
        int first = __shfl_sync(0x0000ffffu, lane * 3, 0);
        out[lane] = s[lane + 16] + first;   // mark: load
    }
}
