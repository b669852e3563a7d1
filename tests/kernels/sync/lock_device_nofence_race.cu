/* gpurace-suite
 * category: sync/lock
 * expect: race
 * race-class: race
 * race-lines: 17 17
 * launch: grid=4 block=32 shared=0
 * args: lock=buffer(int,1) total=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: the global atomicCAS lock has no fences, so nothing orders one block's critical section before the next one's.
 */
extern "C" __global__ void lock_device_nofence_race(int* lock, int* total)
{
    if (threadIdx.x == 0) {
        while (atomicCAS(&lock[0], 0, 1) != 0)  // mark: atomic
            ;
        total[0] = total[0] + (int)blockIdx.x + 1;   // mark: store
        atomicExch(&lock[0], 0);            // mark: atomic
    }
}
