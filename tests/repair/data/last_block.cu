// Sums an array in one launch: every block writes its partial sum, and the last block to finish
// (counted with an atomic ticket) adds the partial sums up. The partial sum's store is not
// fenced before the ticket, so the last block may read a stale value.
__device__ unsigned int blocks_done = 0;

extern "C" __global__ void sum_all(const int *in, int *partial, int *total, int n) {
    __shared__ bool is_last;
    if (threadIdx.x == 0) {
        int s = 0;
        for (int k = 0; k < blockDim.x && blockIdx.x * blockDim.x + k < n; k++)
            s += in[blockIdx.x * blockDim.x + k];
        partial[blockIdx.x] = s;
        unsigned int ticket = atomicInc(&blocks_done, gridDim.x);
        is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (is_last && threadIdx.x == 0) {
        int s = 0;
        for (int b = 0; b < gridDim.x; b++) s += partial[b];
        *total = s;
        atomicExch(&blocks_done, 0u);
    }
}
