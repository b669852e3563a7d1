/* gpurace-suite
 * category: sync/vote
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: __all_sync and __any_sync results are written per thread into distinct elements.
 */
extern "C" __global__ void all_any_ok(const int* in, int* out)
{
    int t = threadIdx.x;
    int all_pos = __all_sync(0xffffffffu, in[t] >= 0);
    int any_big = __any_sync(0xffffffffu, in[t] > 40);
    out[t] = all_pos * 2 + any_big;         // mark: store
}
