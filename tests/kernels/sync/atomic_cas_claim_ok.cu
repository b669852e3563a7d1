/* gpurace-suite
 * category: sync/atomic
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: owner=buffer(int,1) winners=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: threads race to claim a word with atomicCAS; only atomics touch both words.
 */
extern "C" __global__ void atomic_cas_claim_ok(int* owner, int* winners)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (atomicCAS(&owner[0], 0, i + 1) == 0)   // mark: atomic
        atomicAdd(&winners[0], 1);          // mark: atomic
}
