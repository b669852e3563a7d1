// Each warp reads the words the other warp stores, without a barrier (read-write, global).
extern "C" __global__ void tp_rw_global(int* buf, int* out)
{
    int t = threadIdx.x;
    buf[t] = t + 1;
    out[t] = buf[(t + 32) % 64];
}
