/* gpurace-suite
 * category: benign/same-value
 * expect: race
 * race-class: race
 * race-lines: 16 16
 * launch: grid=1 block=64 shared=0
 * args: out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: every thread initializes the shared size word with the same blockDim value.
 */
extern "C" __global__ void shared_init_by_all_race(int* out)
{
    __shared__ int count;
    int t = threadIdx.x;
    count = blockDim.x;                     // mark: store
    __syncthreads();                        // mark: barrier
    out[t] = count - t;                     // mark: load
}
