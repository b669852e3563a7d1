/* gpurace-suite
 * category: sync/atomic-ref
 * expect: no-race
 * launch: grid=4 block=32 shared=0
 * args: slots=buffer(int,4) ticket=buffer(int,1) out=buffer(int,4)
 * warp-model: both
 * modes: both
 * note: each block writes its slot then does an acq_rel fetch_add on a device-scope ticket; the block drawing the last ticket reads all slots, ordered by the release sequence of the RMW chain.
 */
#include <cuda/atomic>

extern "C" __global__ void atomic_ref_ticket_ok(int* slots, int* ticket, int* out)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> next(ticket[0]);
    if (threadIdx.x != 0)
        return;
    slots[blockIdx.x] = (int)blockIdx.x * 10;   // mark: store
    int mine = next.fetch_add(1, cuda::memory_order_acq_rel);
    if (mine == (int)gridDim.x - 1) {
        for (int b = 0; b < (int)gridDim.x; ++b)
            out[b] = slots[b];              // mark: load
    }
}
