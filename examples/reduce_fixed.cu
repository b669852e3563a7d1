/* gpurace-suite
 * category: examples/reduction
 * expect: no-race
 * launch: grid=2 block=128 shared=0
 * args: in=buffer(float,256,ones) out=buffer(float,2)
 * warp-model: both
 * modes: both
 * note: every step of the tree reduction ends with __syncthreads, so each read follows the write it depends on.
 */
// The corrected reduction: gpurace check reports no race.
//   gpurace check examples/reduce_fixed.cu --grid 2 --block 128
#define BLOCK 128

extern "C" __global__ void reduce_sum(const float* in, float* out)
{
    __shared__ float partial[BLOCK];
    int t = threadIdx.x;
    partial[t] = in[blockIdx.x * BLOCK + t];   // mark: store
    __syncthreads();                        // mark: barrier
    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (t < stride)
            partial[t] += partial[t + stride];   // mark: store
        __syncthreads();                    // mark: barrier
    }
    if (t == 0)
        out[blockIdx.x] = partial[0];       // mark: store
}
