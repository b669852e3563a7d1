/* gpurace-suite
 * category: sync/cooperative-groups
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: a 32-thread tile synchronizes and each thread reads a neighbour inside its own tile.
 */
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_tile32_sync_ok(const int* in, int* out)
{
    __shared__ int s[64];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int t = block.thread_rank();
    s[t] = in[t];                           // mark: store
    tile.sync();
    int base = t - tile.thread_rank();
    out[t] = s[base + ((tile.thread_rank() + 1) & 31)];   // mark: load
}
