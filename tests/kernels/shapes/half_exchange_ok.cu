/* gpurace-suite
 * category: shapes/fp16
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(half,64,ones) out=buffer(half,64)
 * warp-model: both
 * modes: both
 * note: the __half exchange with a barrier between store and load.
 */
#include <cuda_fp16.h>

extern "C" __global__ void half_exchange_ok(const __half* in, __half* out)
{
    __shared__ __half s[64];
    int t = threadIdx.x;
    s[t] = __hmul(in[t], __float2half(2.0f));   // mark: store
    __syncthreads();                        // mark: barrier
    out[t] = s[t ^ 32];                     // mark: load
}
