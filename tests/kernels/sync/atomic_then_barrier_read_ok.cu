/* gpurace-suite
 * category: sync/atomic
 * expect: no-race
 * launch: grid=2 block=64 shared=0
 * args: in=buffer(int,128,iota) out=buffer(int,2)
 * warp-model: both
 * modes: both
 * note: a shared counter is updated atomically, then __syncthreads orders the plain read by thread 0.
 */
extern "C" __global__ void atomic_then_barrier_read_ok(const int* in, int* out)
{
    __shared__ int count;
    int t = threadIdx.x;
    if (t == 0)
        count = 0;                          // mark: store
    __syncthreads();                        // mark: barrier
    if (in[blockIdx.x * 64 + t] & 1)
        atomicAdd(&count, 1);               // mark: atomic
    __syncthreads();                        // mark: barrier
    if (t == 0)
        out[blockIdx.x] = count;            // mark: load
}
