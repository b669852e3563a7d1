/* gpurace-suite
 * category: scoped/atomic
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: counter=buffer(int,2)
 * warp-model: both
 * modes: both
 * note: each block updates only its own global word with atomicAdd_block, so block scope suffices.
 */
extern "C" __global__ void atomic_add_block_per_block_ok(int* counter)
{
    atomicAdd_block(&counter[blockIdx.x], 1);   // mark: atomic
}
