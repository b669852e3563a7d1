// Warp 1 reads shared words warp 0 stores in the same barrier interval (read-write, shared).
extern "C" __global__ void tp_rw_shared(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t] * 2;
    __syncthreads();
    if (t < 32)
        s[t] = s[t] + 1;
    else
        out[t] = s[t - 32];
}
