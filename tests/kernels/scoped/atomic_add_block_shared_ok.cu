/* gpurace-suite
 * category: scoped/atomic
 * expect: no-race
 * launch: grid=2 block=64 shared=0
 * args: in=buffer(int,128,iota) out=buffer(int,2)
 * warp-model: both
 * modes: both
 * note: a shared-memory counter updated with atomicAdd_block is only visible within its block.
 */
extern "C" __global__ void atomic_add_block_shared_ok(const int* in, int* out)
{
    __shared__ int count;
    int t = threadIdx.x;
    if (t == 0)
        count = 0;                          // mark: store
    __syncthreads();                        // mark: barrier
    atomicAdd_block(&count, in[blockIdx.x * 64 + t] & 3);   // mark: atomic
    __syncthreads();                        // mark: barrier
    if (t == 0)
        out[blockIdx.x] = count;            // mark: load
}
