/* gpurace-suite
 * category: scoped/atomic
 * expect: race
 * race-class: scoped-race
 * race-lines: 15 17
 * launch: grid=2 block=32 shared=0
 * args: counter=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: block 0 uses device-scope atomicAdd, block 1 block-scope atomicAdd_block on the same word; a pair is safe only if both scopes cover both threads.
 */
extern "C" __global__ void mixed_scope_race(int* counter)
{
    if (blockIdx.x == 0)
        atomicAdd(&counter[0], 1);          // mark: atomic
    else
        atomicAdd_block(&counter[0], 1);    // mark: atomic
}
