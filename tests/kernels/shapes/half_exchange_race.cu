/* gpurace-suite
 * category: shapes/fp16
 * expect: race
 * race-class: race
 * race-lines: 18 19
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(half,64,ones) out=buffer(half,64)
 * warp-model: both
 * modes: both
 * note: __half values exchanged through shared memory across warps without a barrier.
 */
#include <cuda_fp16.h>

extern "C" __global__ void half_exchange_race(const __half* in, __half* out)
{
    __shared__ __half s[64];
    int t = threadIdx.x;
    s[t] = __hmul(in[t], __float2half(2.0f));   // mark: store
    out[t] = s[t ^ 32];                     // mark: load
}
