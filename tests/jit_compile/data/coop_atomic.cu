// cooperative_groups, cuda::atomic_ref and half precision through NVRTC.
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda_fp16.h>
namespace cg = cooperative_groups;
extern "C" __global__ void count_and_sync(int *counter, __half *h) {
    cg::thread_block block = cg::this_thread_block();
    cuda::atomic_ref<int, cuda::thread_scope_device> ref(*counter);
    ref.fetch_add(1, cuda::std::memory_order_relaxed);
    block.sync();
    if (block.thread_rank() == 0) h[0] = __hadd(h[0], __float2half(1.0f));
}
