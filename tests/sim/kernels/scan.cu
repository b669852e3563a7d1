// Inclusive scans: Hillis-Steele in shared memory, and a warp scan with __shfl_up_sync.
extern "C" __global__ void scan_block(const int *in, int *out, int n) {
    __shared__ int a[512], b[512];
    int t = threadIdx.x;
    a[t] = t < n ? in[t] : 0;
    __syncthreads();
    int *src = a, *dst = b;
    for (int off = 1; off < blockDim.x; off <<= 1) {
        dst[t] = t >= off ? src[t] + src[t - off] : src[t];
        __syncthreads();
        int *tmp = src; src = dst; dst = tmp;
    }
    if (t < n) out[t] = src[t];
}

extern "C" __global__ void scan_warp(const unsigned *in, unsigned *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[i];
    int lane = threadIdx.x & 31;
    for (int off = 1; off < 32; off <<= 1) {
        unsigned u = __shfl_up_sync(0xffffffffu, v, off);
        if (lane >= off) v += u;
    }
    __syncwarp();
    out[i] = v;
}
