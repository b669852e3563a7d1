/* gpurace-suite
 * category: scoped/atomic
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: counter=buffer(int,1) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: cuda::atomic_ref with thread_scope_device covers threads of all blocks.
 */
#include <cuda/atomic>

extern "C" __global__ void atomic_ref_device_fetch_add_ok(int* counter, int* out)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> c(counter[0]);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = c.fetch_add(1, cuda::memory_order_relaxed);   // mark: store
}
