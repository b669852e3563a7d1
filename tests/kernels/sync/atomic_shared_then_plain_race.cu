/* gpurace-suite
 * category: sync/atomic
 * expect: race
 * race-class: race
 * race-lines: 20 22
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: thread 0 reads the shared counter without waiting for the other threads' atomics (the second barrier is missing).
 */
extern "C" __global__ void atomic_shared_then_plain_race(const int* in, int* out)
{
    __shared__ int count;
    int t = threadIdx.x;
    if (t == 0)
        count = 0;                          // mark: store
    __syncthreads();                        // mark: barrier
    if (in[t] & 1)
        atomicAdd(&count, 1);               // mark: atomic
    if (t == 0)
        out[0] = count;                     // mark: load
}
