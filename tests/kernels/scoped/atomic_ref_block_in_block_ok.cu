/* gpurace-suite
 * category: scoped/atomic-ref
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,4,iota) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: release/acquire through a thread_scope_block atomic_ref between two warps of one block is properly scoped.
 */
#include <cuda/atomic>

extern "C" __global__ void atomic_ref_block_in_block_ok(const int* in, int* out)
{
    __shared__ int data;
    __shared__ int flag;
    int t = threadIdx.x;
    if (t == 0)
        flag = 0;                           // mark: store
    __syncthreads();                        // mark: barrier
    cuda::atomic_ref<int, cuda::thread_scope_block> ready(flag);
    if (t == 0) {
        data = in[3];                        // mark: store
        ready.store(1, cuda::memory_order_release);
    } else if (t == 32) {
        while (ready.load(cuda::memory_order_acquire) == 0)
            ;
        out[0] = data;                      // mark: load
    }
}
