/* gpurace-suite
 * category: scoped/atomic
 * expect: race
 * race-class: scoped-race
 * race-lines: 18 18
 * launch: grid=2 block=32 shared=0
 * args: counter=buffer(int,1) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: cuda::atomic_ref with thread_scope_block used by threads of two blocks on one global word.
 */
#include <cuda/atomic>

extern "C" __global__ void atomic_ref_block_fetch_add_race(int* counter, int* out)
{
    cuda::atomic_ref<int, cuda::thread_scope_block> c(counter[0]);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = c.fetch_add(1, cuda::memory_order_relaxed);   // mark: store
}
