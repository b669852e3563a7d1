/* gpurace-suite
 * category: sync/last-block
 * expect: race
 * race-class: race
 * race-lines: 23 31
 * launch: grid=4 block=64 shared=0
 * args: in=buffer(int,256,ones) partial=buffer(int,4) count=buffer(unsigned,1) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: without the fences the relaxed atomic counter does not order another block's partial store before the last block's load of it.
 */
extern "C" __global__ void last_block_nofence_race(const int* in, int* partial, unsigned* count, int* out)
{
    __shared__ int sum;
    __shared__ bool is_last;
    int t = threadIdx.x;
    if (t == 0)
        sum = 0;                            // mark: store
    __syncthreads();                        // mark: barrier
    atomicAdd(&sum, in[blockIdx.x * blockDim.x + t]);   // mark: atomic
    __syncthreads();                        // mark: barrier
    if (t == 0) {
        partial[blockIdx.x] = sum;          // mark: store
        unsigned ticket = atomicInc(count, gridDim.x);   // mark: atomic
        is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();                        // mark: barrier
    if (is_last && t == 0) {
        int total = 0;
        for (int b = 0; b < (int)gridDim.x; ++b)
            total += partial[b];            // mark: load
        out[0] = total;                     // mark: store
    }
}
