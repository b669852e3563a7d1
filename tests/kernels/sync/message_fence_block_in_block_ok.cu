/* gpurace-suite
 * category: sync/fence
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,4,iota) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: inside one block, warp 0 publishes with __threadfence_block and a block-scope atomic flag; warp 1 acquires the same way; block scope covers both.
 */
extern "C" __global__ void message_fence_block_in_block_ok(const int* in, int* out)
{
    __shared__ int data;
    __shared__ int flag;
    int t = threadIdx.x;
    if (t == 0)
        flag = 0;                           // mark: store
    __syncthreads();                        // mark: barrier
    if (t == 0) {
        data = in[3];                       // mark: store
        __threadfence_block();
        atomicExch_block(&flag, 1);         // mark: atomic
    } else if (t == 32) {
        while (atomicAdd_block(&flag, 0) == 0)  // mark: atomic
            ;
        __threadfence_block();
        out[0] = data;                      // mark: load
    }
}
