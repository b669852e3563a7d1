/* gpurace-suite
 * category: sync/named-barrier
 * expect: race
 * race-class: race
 * race-lines: 18 21
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: the producer warp arrives at the named barrier before writing, so its store is unordered with the consumer's load.
 */
extern "C" __global__ void named_arrive_too_early_race(const int* in, int* out)
{
    __shared__ int buf[32];
    int t = threadIdx.x;
    if (t < 32) {
        asm volatile("bar.arrive 1, 64;" ::: "memory");     // mark: barrier
        buf[t] = in[t] * 2;                                 // mark: store
    } else {
        asm volatile("bar.sync 1, 64;" ::: "memory");       // mark: barrier
        out[t - 32] = buf[63 - t];                          // mark: load
    }
}
