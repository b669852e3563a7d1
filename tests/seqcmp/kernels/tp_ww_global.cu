// Two warps store different values to the same 32 words (write-write, global).
extern "C" __global__ void tp_ww_global(int* out)
{
    out[threadIdx.x % 32] = threadIdx.x;
}
