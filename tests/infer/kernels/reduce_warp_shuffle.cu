/* Warp-shuffle reduction: each warp sums its values with __shfl_down_sync, lane 0 adds the
 * warp's sum to the total atomically.
 * intended: any grid, block a multiple of 32
 * expect: clean */
extern "C" __global__ void reduce_warp_shuffle(const int *in, int *total, int n)
{
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(total, sum);
}
