/* gpurace-suite
 * category: other/hang
 * expect: hang
 * launch: grid=1 block=32 shared=0
 * args: ticks=buffer(unsigned,1) n=8
 * warp-model: both
 * modes: both
 * note: an unsigned loop counter compared with >= 0 never ends; the loop keeps incrementing a counter atomically.
 */
extern "C" __global__ void hang_counting_loop(unsigned* ticks, unsigned n)
{
    if (threadIdx.x != 0)
        return;
    for (unsigned k = n; k >= 0u; --k)
        atomicAdd(&ticks[0], 1u);           // mark: atomic
}
