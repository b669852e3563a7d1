/* gpurace-suite
 * category: relation/same-thread
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: each thread reads back only what it wrote itself; program order suffices.
 */
extern "C" __global__ void same_thread_ok(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    s[t] = s[t] * 2 + 1;
    out[t] = s[t];                          // mark: store
}
