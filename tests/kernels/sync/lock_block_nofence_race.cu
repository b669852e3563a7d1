/* gpurace-suite
 * category: sync/lock
 * expect: race
 * race-class: race
 * race-lines: 25 25
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: the atomicCAS lock has no fences: relaxed atomics alone create no happens-before, so the two critical sections' accesses to total race.
 */
extern "C" __global__ void lock_block_nofence_race(const int* in, int* out)
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
        total = total + in[t];              // mark: store
        atomicExch(&lock, 0);               // mark: atomic
    }
    __syncthreads();                        // mark: barrier
    if (t == 0)
        out[0] = total;                     // mark: store
}
