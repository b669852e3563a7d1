/* gpurace-suite
 * category: sync/cg
 * expect: no-race
 * launch: grid=2 block=128 shared=0
 * args: in=buffer(int,256,iota) out=buffer(int,4)
 * warp-model: both
 * modes: both
 * note: tiles of 64 threads span two warps; cooperative groups keeps their sync state in the block's reserved shared memory (%reserved_smem_offset_*), and tile.sync() orders the shared writes of one warp before the other warp's reads.
 */
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_tile64_reduce_ok(const int* in, int* out)
{
    __shared__ int part[128];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
    int t = (int)block.thread_rank();
    part[t] = in[blockIdx.x * 128 + t];     // mark: store
    tile.sync();
    if (tile.thread_rank() == 0) {
        int base = t, sum = 0;
        for (int k = 0; k < 64; k++)
            sum += part[base + k];          // mark: load
        out[blockIdx.x * 2 + t / 64] = sum; // mark: store
    }
}
