/* gpurace-suite
 * category: scoped/atomic
 * expect: no-race
 * launch: grid=4 block=32 shared=0
 * args: counter=buffer(int,1) out=buffer(int,128)
 * warp-model: both
 * modes: both
 * note: system-scope atomics cover every thread of every block.
 */
extern "C" __global__ void atomic_system_across_blocks_ok(int* counter, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = atomicAdd_system(&counter[0], 1);  // mark: atomic
}
