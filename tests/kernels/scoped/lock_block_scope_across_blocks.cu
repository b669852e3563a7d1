/* gpurace-suite
 * category: scoped/lock
 * expect: race
 * race-class: scoped-race
 * race-lines: 20 20
 * also-races: 17 17, 17 22, 22 22
 * launch: grid=2 block=32 shared=0
 * args: lock=buffer(int,1) total=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: a global lock built from atomicCAS_block/atomicExch_block is shared by two blocks; block scope covers neither the lock word nor the critical section.
 */
extern "C" __global__ void lock_block_scope_across_blocks(int* lock, int* total)
{
    if (threadIdx.x != 0)
        return;
    while (atomicCAS_block(&lock[0], 0, 1) != 0)   // mark: atomic
        ;
    __threadfence();
    total[0] = total[0] + 1;                // mark: store
    __threadfence();
    atomicExch_block(&lock[0], 0);          // mark: atomic
}
