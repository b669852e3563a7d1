// Two warps store different values to the same shared words in one barrier interval.
extern "C" __global__ void tp_ww_shared(int* out)
{
    __shared__ int s[32];
    s[threadIdx.x % 32] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x % 32];
}
