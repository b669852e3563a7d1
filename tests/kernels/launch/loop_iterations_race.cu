/* gpurace-suite
 * category: launch/loop
 * expect: race
 * race-class: race
 * race-lines: 20 22
 * launch: search
 * spec: grid=1 block={32,64} iters=0..4 in=buffer(int,64,iota) out=buffer(int,64)
 * baseline: grid=1 block=64 shared=0 iters=1 in=buffer(int,64,iota) out=buffer(int,64)
 * witness: grid=1 block=64 shared=0 iters=2 in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: its
 * modes: both
 * note: a loop with one barrier per iteration is race-free for one iteration; from the second iteration on a store can overtake a neighbour's read.
 */
extern "C" __global__ void loop_iterations_race(const int* in, int* out, int iters)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int acc = in[t];
    for (int it = 0; it < iters; ++it) {
        s[t] = acc;                         // mark: store
        __syncthreads();                    // mark: barrier
        acc += s[(t + 1) % blockDim.x];     // mark: load
    }
    out[t] = acc;                           // mark: store
}
