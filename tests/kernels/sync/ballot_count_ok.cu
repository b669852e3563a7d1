/* gpurace-suite
 * category: sync/vote
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,2)
 * warp-model: both
 * modes: both
 * note: __ballot_sync result is a register; lane 0 of each warp writes its own slot.
 */
extern "C" __global__ void ballot_count_ok(const int* in, int* out)
{
    int t = threadIdx.x;
    unsigned bits = __ballot_sync(0xffffffffu, (in[t] % 3) == 0);
    if ((t & 31) == 0)
        out[t / 32] = __popc(bits);         // mark: store
}
