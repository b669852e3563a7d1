/* gpurace-suite
 * category: other/barrier-divergence
 * expect: barrier-divergence
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: thread 0 sees in[0] == 0 and skips the barrier the other threads wait at.
 */
extern "C" __global__ void divergence_data_dependent(const int* in, int* out)
{
    int t = threadIdx.x;
    if (in[t] > 0)
        __syncthreads();                    // mark: barrier
    out[t] = in[t];                         // mark: store
}
