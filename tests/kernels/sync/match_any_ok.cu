/* gpurace-suite
 * category: sync/vote
 * expect: no-race
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: lanes with equal keys are grouped with __match_any_sync and the lowest lane of each group adds the group size atomically.
 */
extern "C" __global__ void match_any_ok(const int* in, int* out)
{
    int lane = threadIdx.x;
    int key = in[lane] & 3;
    unsigned peers = __match_any_sync(0xffffffffu, key);
    int leader = __ffs(peers) - 1;
    if (lane == leader)
        atomicAdd(&out[key], __popc(peers));   // mark: atomic
}
