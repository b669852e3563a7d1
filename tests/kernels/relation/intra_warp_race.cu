/* gpurace-suite
 * category: relation/intra-warp
 * expect: race
 * race-class: race
 * race-lines: 17 18
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: its
 * expect-lockstep: no-race
 * modes: both
 * note: lanes of one warp exchange values through shared memory without __syncwarp; under independent thread scheduling the lanes are unordered.
 */
extern "C" __global__ void intra_warp_race(const int* in, int* out)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = in[t];                           // mark: store
    out[t] = s[t ^ 1];                      // mark: load
}
