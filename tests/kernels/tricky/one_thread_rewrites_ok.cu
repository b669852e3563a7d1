/* gpurace-suite
 * category: tricky/one-writer
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: thread 0 alone rewrites a shared word several times; others read it only after the barrier.
 */
extern "C" __global__ void one_thread_rewrites_ok(const int* in, int* out)
{
    __shared__ volatile int acc;
    int t = threadIdx.x;
    if (t == 0) {
        acc = in[0];                        // mark: store
        for (int k = 1; k < 64; ++k)
            acc = acc + in[k];              // mark: store
    }
    __syncthreads();                        // mark: barrier
    out[t] = acc - in[t];                   // mark: load
}
