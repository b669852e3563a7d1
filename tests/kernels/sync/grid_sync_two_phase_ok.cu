/* gpurace-suite
 * category: sync/grid
 * expect: no-race
 * launch: grid=4 block=64 shared=0
 * args: a=buffer(int,256) b=buffer(int,256) n=256
 * warp-model: both
 * modes: both
 * note: every thread writes its element, the whole grid synchronizes (cooperative groups, a cooperative launch), then each thread reads its neighbour's element, which another block wrote: the grid sync orders the two phases.
 */
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void grid_sync_two_phase_ok(int* a, int* b, int n)
{
    cg::grid_group grid = cg::this_grid();
    int i = (int)grid.thread_rank();
    if (i < n)
        a[i] = 3 * i + 1;                   // mark: store
    grid.sync();
    if (i < n)
        b[i] = a[(i + 64) % n];             // mark: load
}
