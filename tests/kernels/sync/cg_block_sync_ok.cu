/* gpurace-suite
 * category: sync/cooperative-groups
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: thread_block::sync is a block barrier and orders the reversal.
 */
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_block_sync_ok(const int* in, int* out)
{
    __shared__ int s[64];
    cg::thread_block block = cg::this_thread_block();
    int t = block.thread_rank();
    s[t] = in[t];                           // mark: store
    block.sync();
    out[t] = s[63 - t];                     // mark: load
}
