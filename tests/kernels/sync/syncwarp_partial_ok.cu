/* gpurace-suite
 * category: sync/warp
 * expect: no-race
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: lanes 0-15 rotate among themselves and __syncwarp(0x0000ffff) covers exactly those lanes.
 */
extern "C" __global__ void syncwarp_partial_ok(const int* in, int* out)
{
    __shared__ int s[16];
    int lane = threadIdx.x;
    if (lane < 16) {
        s[lane] = in[lane];                 // mark: store
        __syncwarp(0x0000ffffu);            // mark: barrier
        out[lane] = s[(lane + 1) & 15];     // mark: load
    }
}
