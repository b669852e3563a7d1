/* gpurace-suite
 * category: sync/warp
 * expect: race
 * race-class: race
 * race-lines: 17 20
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,16)
 * warp-model: its
 * modes: both
 * note: lanes 0-15 synchronize only among themselves but read slots written by lanes 16-31, which are outside the mask.
 */
extern "C" __global__ void syncwarp_partial_race(const int* in, int* out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    if (lane >= 16)
        s[lane] = in[lane];                 // mark: store
    if (lane < 16) {
        __syncwarp(0x0000ffffu);            // mark: barrier
        out[lane] = s[lane + 16];           // mark: load
    }
}
