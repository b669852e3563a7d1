/* gpurace-suite
 * category: scoped/atomic
 * expect: race
 * race-class: scoped-race
 * race-lines: 14 14
 * launch: grid=2 block=32 shared=0
 * args: counter=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: atomicAdd_block has block scope; threads of different blocks updating one global word are not covered by it.
 */
extern "C" __global__ void atomic_add_block_across_blocks(int* counter)
{
    atomicAdd_block(&counter[0], 1);        // mark: atomic
}
