/* gpurace-suite
 * category: sync/barrier
 * expect: race
 * race-class: race
 * race-lines: 18 20
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: a loop with a single barrier lets iteration i+1's store overwrite a slot a slower thread still reads in iteration i.
 */
extern "C" __global__ void barrier_loop_one_barrier_race(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int acc = in[t];
    for (int it = 0; it < 4; ++it) {
        s[t] = acc + it;                    // mark: store
        __syncthreads();                    // mark: barrier
        acc += s[(t + 1) % 64];             // mark: load
    }
    out[t] = acc;                           // mark: store
}
