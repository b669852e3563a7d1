/* gpurace-suite
 * category: shapes/printf
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota)
 * warp-model: both
 * modes: both
 * note: the printed neighbour value is read after __syncthreads.
 */
extern "C" __global__ void printf_ok(const int* in)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t] * 10;                      // mark: store
    __syncthreads();                        // mark: barrier
    int seen = s[63 - t];                   // mark: load
    printf("thread %d sees %d\n", t, seen);
}
