/* gpurace-suite
 * category: relation/inter-block
 * expect: race
 * race-class: race
 * race-lines: 16 19
 * launch: grid=2 block=32 shared=0
 * args: buf=buffer(int,32) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: block 0 writes a global buffer that block 1 reads; a __syncthreads would not help across blocks.
 */
extern "C" __global__ void inter_block_race(int* buf, int* out)
{
    int t = threadIdx.x;
    if (blockIdx.x == 0)
        buf[t] = t * 7;                     // mark: store
    __syncthreads();                        // mark: barrier
    if (blockIdx.x == 1)
        out[t] = buf[t];                    // mark: load
}
