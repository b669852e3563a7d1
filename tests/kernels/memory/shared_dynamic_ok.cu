/* gpurace-suite
 * category: memory/shared-dynamic
 * expect: no-race
 * launch: grid=1 block=64 shared=256
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: the reversal through dynamic shared memory is separated by __syncthreads.
 */
extern "C" __global__ void shared_dynamic_ok(const int* in, int* out)
{
    extern __shared__ int dyn[];
    int t = threadIdx.x;
    dyn[t] = in[t];                         // mark: store
    __syncthreads();                        // mark: barrier
    out[t] = dyn[63 - t];                   // mark: load
}
