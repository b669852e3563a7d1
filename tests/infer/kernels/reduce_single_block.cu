/* Single-block reduction of a whole array: the block strides over the input, then reduces
 * its partial sums in shared memory; thread 0 writes the result.
 * intended: grid=1, block=128
 * expect: clean */
extern "C" __global__ void reduce_single_block(const float *in, float *result, int n)
{
    __shared__ float partial[128];
    float acc = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        acc += in[i];
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        result[0] = partial[0];
}
