/* gpurace-suite
 * category: sync/cooperative-groups
 * expect: race
 * race-class: race
 * race-lines: 22 24
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: its
 * expect-lockstep: no-race
 * modes: both
 * note: tile<16>::sync orders only the 16 threads of a tile; reading the other half-warp's slot is unordered.
 */
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_tile16_cross_tile_race(const int* in, int* out)
{
    __shared__ int s[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    int t = block.thread_rank();
    s[t] = in[t];                           // mark: store
    tile.sync();
    out[t] = s[t ^ 16];                     // mark: load
}
