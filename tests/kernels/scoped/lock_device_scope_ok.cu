/* gpurace-suite
 * category: scoped/lock
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: lock=buffer(int,1) total=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: the same lock with device-scope atomicCAS/atomicExch and device fences orders the critical sections of both blocks.
 */
extern "C" __global__ void lock_device_scope_ok(int* lock, int* total)
{
    if (threadIdx.x != 0)
        return;
    while (atomicCAS(&lock[0], 0, 1) != 0)  // mark: atomic
        ;
    __threadfence();
    total[0] = total[0] + 1;                // mark: store
    __threadfence();
    atomicExch(&lock[0], 0);                // mark: atomic
}
