/* gpurace-suite
 * category: sync/shuffle
 * expect: no-race
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: shfl.sync over the full mask synchronizes the lanes of the mask, so the rotate through shared memory after it is ordered.
 */
extern "C" __global__ void shfl_orders_lanes_ok(const int* in, int* out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    s[lane] = in[lane];                     // mark: store
    int first = __shfl_sync(0xffffffffu, in[lane], 0);
    out[lane] = s[(lane + 1) & 31] + first; // mark: load
}
