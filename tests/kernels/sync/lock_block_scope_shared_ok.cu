/* gpurace-suite
 * category: sync/lock
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: threads 0 and 32 (two warps of one block) take a shared lock with block-scope atomics (atomicCAS_block, atomicExch_block) and block-scope fences: block scope covers both threads.
 */
extern "C" __global__ void lock_block_scope_shared_ok(const int* in, int* out)
{
    __shared__ int lock;
    __shared__ int total;
    int t = threadIdx.x;
    if (t == 0) {
        lock = 0;                                   // mark: store
        total = 0;
    }
    __syncthreads();                                // mark: barrier
    if (t == 0 || t == 32) {
        while (atomicCAS_block(&lock, 0, 1) != 0)   // mark: atomic
            ;
        __threadfence_block();
        total = total + in[t];                      // mark: store
        __threadfence_block();
        atomicExch_block(&lock, 0);                 // mark: atomic
    }
    __syncthreads();                                // mark: barrier
    if (t == 0)
        out[0] = total;                             // mark: store
}
