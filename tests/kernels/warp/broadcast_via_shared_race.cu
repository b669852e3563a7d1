/* gpurace-suite
 * category: warp/legacy
 * expect: race
 * race-class: race
 * race-lines: 18 19
 * launch: grid=1 block=32 shared=0
 * args: counter=buffer(int,1) out=buffer(int,32)
 * warp-model: its
 * expect-lockstep: no-race
 * modes: both
 * note: lane 0 reserves space and broadcasts the base through shared memory; without __syncwarp the other lanes may read it early.
 */
extern "C" __global__ void broadcast_via_shared_race(int* counter, int* out)
{
    __shared__ int base;
    int lane = threadIdx.x;
    if (lane == 0)
        base = atomicAdd(&counter[0], 32);  // mark: store
    out[lane] = base + lane;                // mark: store
}
