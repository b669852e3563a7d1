/* gpurace-suite
 * category: sync/atomic
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: total=buffer(u64,1)
 * warp-model: both
 * modes: both
 * note: 64-bit atomicAdd on one word from two blocks.
 */
extern "C" __global__ void atomic_u64_ok(unsigned long long* total)
{
    unsigned long long v = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&total[0], v << 20);          // mark: atomic
}
