/* gpurace-suite
 * category: sync/named-barrier
 * expect: no-race
 * launch: grid=1 block=96 shared=0
 * args: in=buffer(int,96,iota) out=buffer(int,96)
 * warp-model: both
 * modes: both
 * note: warps 0-1 exchange data through named barrier 1 (count 64) while warp 2 works on its own slots only.
 */
extern "C" __global__ void named_subset_ok(const int* in, int* out)
{
    __shared__ int s[96];
    int t = threadIdx.x;
    s[t] = in[t];                                           // mark: store
    if (t < 64) {
        asm volatile("bar.sync 1, 64;" ::: "memory");       // mark: barrier
        out[t] = s[63 - t];                                 // mark: load
    } else {
        out[t] = s[t] + 1;                                  // mark: store
    }
}
