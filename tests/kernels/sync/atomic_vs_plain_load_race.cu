/* gpurace-suite
 * category: sync/atomic
 * expect: race
 * race-class: race
 * race-lines: 15 17
 * launch: grid=1 block=64 shared=0
 * args: counter=buffer(int,1) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: thread 0 reads the counter with a plain load while other threads still add to it atomically.
 */
extern "C" __global__ void atomic_vs_plain_load_race(int* counter, int* out)
{
    int t = threadIdx.x;
    atomicAdd(&counter[0], 1);              // mark: atomic
    if (t == 0)
        out[0] = counter[0];                // mark: load
}
