/* gpurace-suite
 * category: relation/intra-warp
 * expect: no-race
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: __syncwarp over the full mask orders the lanes' stores before the partner loads.
 */
extern "C" __global__ void intra_warp_ok(const int* in, int* out)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = in[t];                           // mark: store
    __syncwarp();                           // mark: barrier
    out[t] = s[t ^ 1];                      // mark: load
}
