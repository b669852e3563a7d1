/* gpurace-suite
 * category: scoped/atomic-ref
 * expect: race
 * race-class: scoped-race
 * race-lines: 21 26
 * also-races: 22 24
 * launch: grid=2 block=32 shared=0
 * args: data=buffer(int,1) flag=buffer(int,1) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: release/acquire through a thread_scope_block atomic_ref between two blocks: the flag accesses and the data they were meant to order are scoped races.
 */
#include <cuda/atomic>

extern "C" __global__ void atomic_ref_block_message_race(int* data, int* flag, int* out)
{
    cuda::atomic_ref<int, cuda::thread_scope_block> ready(flag[0]);
    if (threadIdx.x != 0)
        return;
    if (blockIdx.x == 0) {
        data[0] = 5;                        // mark: store
        ready.store(1, cuda::memory_order_release);
    } else {
        while (ready.load(cuda::memory_order_acquire) == 0)
            ;
        out[0] = data[0];                   // mark: load
    }
}
