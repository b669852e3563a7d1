/* gpurace-suite
 * category: relation/inter-warp
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: __syncthreads orders warp 0's stores before warp 1's loads.
 */
extern "C" __global__ void inter_warp_ok(const int* in, int* out)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t < 32)
        s[t] = in[t];                       // mark: store
    __syncthreads();                        // mark: barrier
    if (t >= 32)
        out[t] = s[t - 32];                 // mark: load
}
