/* gpurace-suite
 * category: sync/warp
 * expect: no-race
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: each half-warp synchronizes with its own mask and reads only within its own half.
 */
extern "C" __global__ void syncwarp_halves_ok(const int* in, int* out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    unsigned mask = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    s[lane] = in[lane] * 2;                 // mark: store
    __syncwarp(mask);                       // mark: barrier
    out[lane] = s[(lane & 16) | ((lane + 1) & 15)];    // mark: load
}
