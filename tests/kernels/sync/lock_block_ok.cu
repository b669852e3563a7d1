/* gpurace-suite
 * category: sync/lock
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: lane 0 of each warp takes a shared atomicCAS lock with block-scope fences around the critical section (acquire and release patterns).
 */
extern "C" __global__ void lock_block_ok(const int* in, int* out)
{
    __shared__ int lock;
    __shared__ int total;
    int t = threadIdx.x;
    if (t == 0) {
        lock = 0;                           // mark: store
        total = 0;
    }
    __syncthreads();                        // mark: barrier
    if ((t & 31) == 0) {
        while (atomicCAS(&lock, 0, 1) != 0) // mark: atomic
            ;
        __threadfence_block();
        total = total + in[t];              // mark: store
        __threadfence_block();
        atomicExch(&lock, 0);               // mark: atomic
    }
    __syncthreads();                        // mark: barrier
    if (t == 0)
        out[0] = total;                     // mark: store
}
