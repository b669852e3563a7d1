// The read-write pattern of tp_rw_shared made safe by a barrier: no conflict.
extern "C" __global__ void tp_ok_barrier(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t] * 2;
    __syncthreads();
    int v = s[(t + 32) % 64];
    __syncthreads();
    s[t] = v + 1;
    __syncthreads();
    out[blockIdx.x * 64 + t] = s[63 - t];
}
