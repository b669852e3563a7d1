/* gpurace-suite
 * category: sync/atomic-ref
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: data=buffer(int,1) flag=buffer(int,1) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: cuda::atomic_ref at device scope: a release store publishes, an acquire load in the other block observes it.
 */
#include <cuda/atomic>

extern "C" __global__ void atomic_ref_release_acquire_ok(int* data, int* flag, int* out)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> ready(flag[0]);
    if (threadIdx.x != 0)
        return;
    if (blockIdx.x == 0) {
        data[0] = 7;                        // mark: store
        ready.store(1, cuda::memory_order_release);
    } else {
        while (ready.load(cuda::memory_order_acquire) == 0)
            ;
        out[0] = data[0];                   // mark: load
    }
}
