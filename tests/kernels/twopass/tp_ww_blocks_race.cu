/* gpurace-suite
 * category: twopass/write-write
 * expect: race
 * race-class: race
 * race-lines: 15 15
 * launch: grid=2 block=32 shared=0
 * args: out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: thread i of both blocks stores its block number to out[i]: nothing orders two blocks.
 */
// Value-based two-pass checking (--oracle twopass): write-write between blocks.
extern "C" __global__ void tp_ww_blocks_race(int* out)
{
    out[threadIdx.x] = blockIdx.x + 1;      // mark: store
}
