/* gpurace-suite
 * category: sync/grid
 * expect: race
 * race-class: race
 * race-lines: 22 23
 * launch: grid=4 block=64 shared=0
 * args: a=buffer(int,256) n=256
 * warp-model: both
 * modes: both
 * note: one grid sync orders the first phase, but in the second phase each thread reads its neighbour in another block and then overwrites its own element, which a thread of the previous block reads: a second grid sync is missing between the read and the write.
 */
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void grid_sync_second_phase_race(int* a, int n)
{
    cg::grid_group grid = cg::this_grid();
    int i = (int)grid.thread_rank();
    if (i < n)
        a[i] = i;                           // mark: store
    grid.sync();
    int next = i < n ? a[(i + 64) % n] : 0; // mark: load
    if (i < n) a[i] = next;                 // mark: store
}
