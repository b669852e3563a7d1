/* gpurace-suite
 * category: sync/cooperative-groups
 * expect: race
 * race-class: race
 * race-lines: 21 23
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: a warp-sized tile sync does not order the other warp's stores.
 */
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_tile32_cross_warp_race(const int* in, int* out)
{
    __shared__ int s[64];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int t = block.thread_rank();
    s[t] = in[t];                           // mark: store
    tile.sync();
    out[t] = s[(t + 32) % 64];              // mark: load
}
