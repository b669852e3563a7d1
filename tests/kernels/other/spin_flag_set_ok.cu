/* gpurace-suite
 * category: other/hang
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: flag=buffer(int,1) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: with two blocks the flag block 0 waits for is set by block 1, so the spin ends.
 */
extern "C" __global__ void spin_flag_set_ok(int* flag, int* out)
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
