/* gpurace-suite
 * category: relation/inter-warp
 * expect: race
 * race-class: race
 * race-lines: 17 19
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: warp 1 reads what warp 0 stores, with no barrier between the warps.
 */
extern "C" __global__ void inter_warp_race(const int* in, int* out)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t < 32)
        s[t] = in[t];                       // mark: store
    if (t >= 32)
        out[t] = s[t - 32];                 // mark: load
}
