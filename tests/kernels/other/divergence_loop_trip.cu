/* gpurace-suite
 * category: other/barrier-divergence
 * expect: barrier-divergence
 * launch: grid=1 block=32 shared=0
 * args: out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: a barrier inside a loop whose trip count depends on the thread id.
 */
extern "C" __global__ void divergence_loop_trip(int* out)
{
    int t = threadIdx.x;
    int acc = 0;
    for (int k = 0; k < t % 3; ++k) {
        acc += k;
        __syncthreads();                    // mark: barrier
    }
    out[t] = acc;                           // mark: store
}
