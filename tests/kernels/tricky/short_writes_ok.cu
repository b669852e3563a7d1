/* gpurace-suite
 * category: tricky/granularity
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(u16,64)
 * warp-model: both
 * modes: both
 * note: 16-bit halves of one word are written by two different threads without synchronization, which is fine.
 */
extern "C" __global__ void short_writes_ok(const int* in, unsigned short* out)
{
    int t = threadIdx.x;
    out[t ^ 1] = (unsigned short)(in[t] + 1000);   // mark: store
}
