/* gpurace-suite
 * category: sync/vote
 * expect: no-race
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: vote.sync over the full mask synchronizes the lanes, ordering the shared stores before the rotated loads.
 */
extern "C" __global__ void vote_orders_lanes_ok(const int* in, int* out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    s[lane] = in[lane] * 5;                 // mark: store
    int any = __any_sync(0xffffffffu, in[lane] > 3);
    out[lane] = s[(lane + 3) & 31] + any;   // mark: load
}
