/* gpurace-suite
 * category: sync/barrier
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: the second barrier at the end of each iteration keeps next iteration's stores after every read.
 */
extern "C" __global__ void barrier_loop_two_barriers_ok(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int acc = in[t];
    for (int it = 0; it < 4; ++it) {
        s[t] = acc + it;                    // mark: store
        __syncthreads();                    // mark: barrier
        acc += s[(t + 1) % 64];             // mark: load
        __syncthreads();                    // mark: barrier
    }
    out[t] = acc;                           // mark: store
}
