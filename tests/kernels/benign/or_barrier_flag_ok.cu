/* gpurace-suite
 * category: benign/same-value
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,const:-1) found=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: __syncthreads_or computes the flag without any shared write; thread 0 alone stores it.
 */
extern "C" __global__ void or_barrier_flag_ok(const int* in, int* found)
{
    int t = threadIdx.x;
    int any = __syncthreads_or(in[t] < 0); // mark: barrier
    if (t == 0)
        found[0] = any;                     // mark: store
}
