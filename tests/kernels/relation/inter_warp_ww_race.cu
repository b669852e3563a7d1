/* gpurace-suite
 * category: relation/inter-warp
 * expect: race
 * race-class: race
 * race-lines: 16 19
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,2)
 * warp-model: both
 * modes: both
 * note: lane 0 of warp 0 and lane 0 of warp 1 store to out[0] from different lines; __syncwarp between them orders lanes of one warp only.
 */
extern "C" __global__ void inter_warp_ww_race(const int* in, int* out)
{
    int t = threadIdx.x;
    if (t == 0)
        out[0] = in[3];                     // mark: store
    __syncwarp();                           // mark: barrier
    if (t == 32)
        out[0] = in[9];                     // mark: store
}
