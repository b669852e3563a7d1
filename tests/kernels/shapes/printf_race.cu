/* gpurace-suite
 * category: shapes/printf
 * expect: race
 * race-class: race
 * race-lines: 16 17
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota)
 * warp-model: both
 * modes: both
 * note: the value printed is read from a neighbour's shared slot before any barrier.
 */
extern "C" __global__ void printf_race(const int* in)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t] * 10;                      // mark: store
    int seen = s[63 - t];                   // mark: load
    printf("thread %d sees %d\n", t, seen);
}
