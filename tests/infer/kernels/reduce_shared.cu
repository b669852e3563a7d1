/* Block-wise tree reduction in shared memory (one partial sum per block).
 * intended: block=256, grid=ceil(n/256)
 * expect: clean */
#define BLOCK 256
extern "C" __global__ void reduce_shared(const float *in, float *partial, int n)
{
    __shared__ float sdata[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = sdata[0];
}
