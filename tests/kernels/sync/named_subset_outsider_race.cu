/* gpurace-suite
 * category: sync/named-barrier
 * expect: race
 * race-class: race
 * race-lines: 17 22
 * launch: grid=1 block=96 shared=0
 * args: in=buffer(int,96,iota) out=buffer(int,96)
 * warp-model: both
 * modes: both
 * note: warp 2 reads warp 0's slots but does not take part in named barrier 1, so nothing orders it after warp 0's stores.
 */
extern "C" __global__ void named_subset_outsider_race(const int* in, int* out)
{
    __shared__ int s[96];
    int t = threadIdx.x;
    if (t < 64) {
        s[t] = in[t];                                       // mark: store
        asm volatile("bar.sync 1, 64;" ::: "memory");       // mark: barrier
        out[t] = s[63 - t];                                 // mark: load
    }
    if (t >= 64)
        out[t] = s[t - 64] * 3;                             // mark: load
}
