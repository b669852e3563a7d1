/* gpurace-suite
 * category: sync/atomic
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: acc=buffer(half,2)
 * warp-model: both
 * modes: both
 * note: __half atomicAdd from cuda_fp16.h; atomics on the same word do not race.
 */
#include <cuda_fp16.h>

extern "C" __global__ void atomic_half_ok(__half* acc)
{
    int t = threadIdx.x;
    atomicAdd(&acc[t & 1], __float2half(0.25f));   // mark: atomic
}
