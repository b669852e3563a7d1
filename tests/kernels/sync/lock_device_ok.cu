/* gpurace-suite
 * category: sync/lock
 * expect: no-race
 * launch: grid=4 block=32 shared=0
 * args: lock=buffer(int,1) total=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: thread 0 of each block takes a global atomicCAS lock; device-scope fences after acquiring and before releasing order the critical sections.
 */
extern "C" __global__ void lock_device_ok(int* lock, int* total)
{
    if (threadIdx.x == 0) {
        while (atomicCAS(&lock[0], 0, 1) != 0)  // mark: atomic
            ;
        __threadfence();
        total[0] = total[0] + (int)blockIdx.x + 1;   // mark: store
        __threadfence();
        atomicExch(&lock[0], 0);            // mark: atomic
    }
}
