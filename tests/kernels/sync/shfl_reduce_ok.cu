/* gpurace-suite
 * category: sync/shuffle
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,2)
 * warp-model: both
 * modes: both
 * note: a warp sum with __shfl_down_sync exchanges registers only; lane 0 of each warp writes its own output slot.
 */
extern "C" __global__ void shfl_reduce_ok(const int* in, int* out)
{
    int t = threadIdx.x;
    int v = in[t];
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((t & 31) == 0)
        out[t / 32] = v;                    // mark: store
}
