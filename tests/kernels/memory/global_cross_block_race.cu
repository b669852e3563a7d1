/* gpurace-suite
 * category: memory/global
 * expect: race
 * race-class: race
 * race-lines: 16 18
 * launch: grid=2 block=32 shared=0
 * args: buf=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: block 1 shifts the buffer in place while block 0 reads it; nothing orders the two blocks.
 */
extern "C" __global__ void global_cross_block_race(int* buf, int* out)
{
    int t = threadIdx.x;
    if (blockIdx.x == 1)
        buf[32 + t] = t;                    // mark: store
    else
        out[t] = buf[63 - t];               // mark: load
}
