#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
extern "C" __global__ void halfmath(__half *h, __nv_bfloat16 *b, __half2 *h2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    h[i] = __hadd(h[i], __float2half(1.5f)) * h[i];
    b[i] = __hmul(b[i], __float2bfloat16(0.5f)) + b[i];
    h2[i] = __hfma2(h2[i], h2[i], __float2half2_rn(2.0f));
}
extern "C" __global__ void coop(int *p) {
    cg::thread_block blk = cg::this_thread_block();
    cg::thread_block_tile<32> w = cg::tiled_partition<32>(blk);
    int v = p[blk.thread_rank()];
    v = cg::reduce(w, v, cg::plus<int>());
    blk.sync();
    if (w.thread_rank() == 0) atomicAdd(p, v);
}
