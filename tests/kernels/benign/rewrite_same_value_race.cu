/* gpurace-suite
 * category: benign/same-value
 * expect: race
 * race-class: race
 * race-lines: 20 21
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,4,const:5) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: thread 1 re-stores the value the shared word already holds while the others read it; the value is unchanged but the accesses are unordered.
 */
extern "C" __global__ void rewrite_same_value_race(const int* in, int* out)
{
    __shared__ int limit;
    int t = threadIdx.x;
    if (t == 0)
        limit = in[0];                      // mark: store
    __syncthreads();                        // mark: barrier
    if (t == 1)
        limit = in[1];                      // mark: store
    out[t] = limit + t;                     // mark: load
}
