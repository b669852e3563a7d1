/* gpurace-suite
 * category: sync/cooperative-groups
 * expect: no-race
 * launch: grid=2 block=64 shared=0
 * args: in=buffer(int,128,iota) out=buffer(int,4)
 * warp-model: both
 * modes: both
 * note: tile shuffles reduce in registers and rank 0 of each tile writes a distinct output element.
 */
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_tile_reduce_ok(const int* in, int* out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    for (int offset = tile.size() / 2; offset > 0; offset /= 2)
        v += tile.shfl_down(v, offset);
    if (tile.thread_rank() == 0)
        out[i / 32] = v;                    // mark: store
}
