/* gpurace-suite
 * category: sync/atomic
 * expect: race
 * race-class: race
 * race-lines: 16 18
 * launch: grid=1 block=64 shared=0
 * args: counter=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: thread 40 resets the counter with a plain store while the others add atomically; a plain access never pairs safely with an atomic.
 */
extern "C" __global__ void atomic_vs_plain_store_race(int* counter)
{
    int t = threadIdx.x;
    if (t == 40)
        counter[0] = 0;                     // mark: store
    else
        atomicAdd(&counter[0], 2);          // mark: atomic
}
