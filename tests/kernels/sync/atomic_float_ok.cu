/* gpurace-suite
 * category: sync/atomic
 * expect: no-race
 * launch: grid=2 block=64 shared=0
 * args: in=buffer(float,128,ones) sum=buffer(float,1)
 * warp-model: both
 * modes: both
 * note: floating-point atomicAdd into one word from two blocks.
 */
extern "C" __global__ void atomic_float_ok(const float* in, float* sum)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&sum[0], in[i] * 0.5f);       // mark: atomic
}
