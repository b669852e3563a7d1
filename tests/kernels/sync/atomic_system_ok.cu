/* gpurace-suite
 * category: sync/atomic
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: total=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: atomicAdd_system has system scope, which covers threads of every block.
 */
extern "C" __global__ void atomic_system_ok(int* total)
{
    atomicAdd_system(&total[0], (int)threadIdx.x);   // mark: atomic
}
