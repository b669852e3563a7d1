/* Reduction with the block size as a template parameter (unrolled tree), instantiated for
 * 128 threads.
 * intended: block=128
 * expect: clean */
template <unsigned int BlockSize>
__global__ void reduce_unrolled(const int *in, int *out, unsigned int n)
{
    __shared__ int sdata[BlockSize];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * BlockSize * 2 + tid;
    int v = 0;
    if (i < n) v = in[i];
    if (i + BlockSize < n) v += in[i + BlockSize];
    sdata[tid] = v;
    __syncthreads();
    if (BlockSize >= 128) { if (tid < 64) sdata[tid] += sdata[tid + 64]; __syncthreads(); }
    if (tid < 32) { sdata[tid] += sdata[tid + 32]; } __syncthreads();
    if (tid < 16) { sdata[tid] += sdata[tid + 16]; } __syncthreads();
    if (tid < 8) { sdata[tid] += sdata[tid + 8]; } __syncthreads();
    if (tid < 4) { sdata[tid] += sdata[tid + 4]; } __syncthreads();
    if (tid < 2) { sdata[tid] += sdata[tid + 2]; } __syncthreads();
    if (tid == 0) out[blockIdx.x] = sdata[0] + sdata[1];
}
template __global__ void reduce_unrolled<128>(const int *, int *, unsigned int);
