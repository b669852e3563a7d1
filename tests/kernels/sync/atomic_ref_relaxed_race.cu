/* gpurace-suite
 * category: sync/atomic-ref
 * expect: race
 * race-class: race
 * race-lines: 20 25
 * launch: grid=2 block=32 shared=0
 * args: data=buffer(int,1) flag=buffer(int,1) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: with relaxed ordering the flag accesses are atomic but synchronize nothing, so the data store and load race.
 */
#include <cuda/atomic>

extern "C" __global__ void atomic_ref_relaxed_race(int* data, int* flag, int* out)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> ready(flag[0]);
    if (threadIdx.x != 0)
        return;
    if (blockIdx.x == 0) {
        data[0] = 7;                        // mark: store
        ready.store(1, cuda::memory_order_relaxed);
    } else {
        while (ready.load(cuda::memory_order_relaxed) == 0)
            ;
        out[0] = data[0];                   // mark: load
    }
}
