/* gpurace-suite
 * category: sync/warp
 * expect: race
 * race-class: race
 * race-lines: 16 18
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: __syncwarp orders lanes of one warp only; lane 31 reads slot 32 of the next warp and lane 63 reads slot 0.
 */
extern "C" __global__ void syncwarp_across_warps_race(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];                           // mark: store
    __syncwarp();                           // mark: barrier
    out[t] = s[(t + 1) % 64];               // mark: load
}
