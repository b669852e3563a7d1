/* gpurace-suite
 * category: warp/legacy
 * expect: race
 * race-class: volatile-race
 * race-lines: 22 23
 * also-races: 23 23
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,1)
 * warp-model: its
 * expect-lockstep: no-race
 * modes: both
 * note: the unrolled last-warp reduction of old CUDA samples: each step reads what another lane wrote one step earlier with no __syncwarp.
 */
extern "C" __global__ void legacy_reduce_two_steps(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];                           // mark: store
    __syncthreads();                        // mark: barrier
    if (t < 32) {
        volatile int* vs = s;
        vs[t] += vs[t + 32];                // mark: store
        vs[t] += vs[t + 16];                // mark: store
        if (t == 0)
            out[0] = vs[0];                 // mark: store
    }
}
