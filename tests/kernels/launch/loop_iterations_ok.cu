/* gpurace-suite
 * category: launch/loop
 * expect: no-race
 * launch: search
 * spec: grid=1 block={32,64} iters=0..4 in=buffer(int,64,iota) out=buffer(int,64)
 * baseline: grid=1 block=64 shared=0 iters=3 in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: with a second barrier per iteration the loop is race-free for every trip count.
 */
extern "C" __global__ void loop_iterations_ok(const int* in, int* out, int iters)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int acc = in[t];
    for (int it = 0; it < iters; ++it) {
        s[t] = acc;                         // mark: store
        __syncthreads();                    // mark: barrier
        acc += s[(t + 1) % blockDim.x];     // mark: load
        __syncthreads();                    // mark: barrier
    }
    out[t] = acc;                           // mark: store
}
