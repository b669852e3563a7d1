/* gpurace-suite
 * category: warp/legacy
 * expect: no-race
 * launch: grid=1 block=32 shared=0
 * args: counter=buffer(int,1) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: the warp-aggregated reservation broadcasts the base with __shfl_sync instead of shared memory.
 */
extern "C" __global__ void broadcast_via_shfl_ok(int* counter, int* out)
{
    int lane = threadIdx.x;
    int base = 0;
    if (lane == 0)
        base = atomicAdd(&counter[0], 32);  // mark: atomic
    base = __shfl_sync(0xffffffffu, base, 0);
    out[lane] = base + lane;                // mark: store
}
