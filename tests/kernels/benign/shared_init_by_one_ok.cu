/* gpurace-suite
 * category: benign/same-value
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: only thread 0 initializes the shared word before the barrier.
 */
extern "C" __global__ void shared_init_by_one_ok(int* out)
{
    __shared__ int count;
    int t = threadIdx.x;
    if (t == 0)
        count = blockDim.x;                 // mark: store
    __syncthreads();                        // mark: barrier
    out[t] = count - t;                     // mark: load
}
