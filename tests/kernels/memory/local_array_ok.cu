/* gpurace-suite
 * category: memory/local
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,1024,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: the dynamically indexed array lives in each thread's private local memory; nothing is shared.
 */
extern "C" __global__ void local_array_ok(const int* in, int* out)
{
    int t = threadIdx.x;
    int scratch[16];
    for (int i = 0; i < 16; ++i)
        scratch[i] = in[t * 16 + i];
    out[t] = scratch[in[t] & 15] + scratch[(in[t] + 3) & 15];   // mark: store
}
