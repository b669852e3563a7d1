/* gpurace-suite
 * category: sync/named-barrier
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: warp 0 produces then arrives at named barrier 1 (count 64); warp 1 waits there before consuming.
 */
extern "C" __global__ void named_producer_consumer_ok(const int* in, int* out)
{
    __shared__ int buf[32];
    int t = threadIdx.x;
    if (t < 32) {
        buf[t] = in[t] * 2;                                 // mark: store
        asm volatile("bar.arrive 1, 64;" ::: "memory");     // mark: barrier
    } else {
        asm volatile("bar.sync 1, 64;" ::: "memory");       // mark: barrier
        out[t - 32] = buf[63 - t];                          // mark: load
    }
}
