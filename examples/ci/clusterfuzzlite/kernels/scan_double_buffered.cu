// Per-block inclusive prefix sum (Hillis-Steele) with two shared buffers: each step reads one
// buffer and writes the other, and a barrier ends the step, so no element is read and written
// in the same step.
#define BLOCK_MAX 1024

__global__ void scan_double_buffered(const float *in, float *out, int n) {
    __shared__ float buf[2][BLOCK_MAX];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    int cur = 0;
    buf[cur][tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        float v = buf[cur][tid];
        if (tid >= offset) v += buf[cur][tid - offset];
        buf[1 - cur][tid] = v;
        __syncthreads();
        cur = 1 - cur;
    }
    if (i < n) out[i] = buf[cur][tid];
}
