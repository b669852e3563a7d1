/* gpurace-suite
 * category: other/hang
 * expect: hang
 * launch: grid=1 block=32 shared=0
 * args: flag=buffer(int,1) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: block 0 waits for a flag that only block 1 sets, but the grid has a single block.
 */
extern "C" __global__ void hang_missing_block(int* flag, int* out)
{
    if (threadIdx.x != 0)
        return;
    if (blockIdx.x == 1) {
        atomicExch(&flag[0], 1);            // mark: atomic
    } else {
        while (atomicAdd(&flag[0], 0) == 0) // mark: atomic
            ;
        out[0] = 1;                         // mark: store
    }
}
