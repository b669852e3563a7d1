/* gpurace-suite
 * category: benign/same-value
 * expect: race
 * race-class: race
 * race-lines: 18 18
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,2)
 * warp-model: both
 * modes: both
 * note: after a butterfly reduction all lanes hold the warp total and all of them store it to the warp's slot.
 */
extern "C" __global__ void redundant_warp_result_race(const int* in, int* out)
{
    int t = threadIdx.x;
    int v = in[t];
    for (int m = 16; m > 0; m >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, m);
    out[t / 32] = v;                        // mark: store
}
