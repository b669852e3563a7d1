// Per-block inclusive prefix sum (Hillis-Steele) computed in place in shared memory.
// Bug: in each step a thread reads buf[tid - offset] while thread (tid - offset) writes that
// same element in the same step; the barrier after the update does not separate the two.
#define BLOCK_MAX 1024

__global__ void scan_inplace(const float *in, float *out, int n) {
    __shared__ float buf[BLOCK_MAX];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    buf[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        if (tid >= offset) buf[tid] += buf[tid - offset];
        __syncthreads();
    }
    if (i < n) out[i] = buf[tid];
}
