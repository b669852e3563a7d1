/* gpurace-suite
 * category: benign/same-value
 * expect: race
 * race-class: race
 * race-lines: 19 19
 * launch: grid=2 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: both blocks compute the same maximum over the input and both thread 0s store it to one word.
 */
extern "C" __global__ void global_same_max_race(const int* in, int* out)
{
    if (threadIdx.x != 0)
        return;
    int best = in[0];
    for (int k = 1; k < 32; ++k)
        best = max(best, in[k]);
    out[0] = best;                          // mark: store
}
