/* gpurace-suite
 * category: shapes/device-function
 * expect: race
 * race-class: race
 * race-lines: 14 14
 * launch: grid=2 block=32 shared=0
 * args: acc=buffer(int,32) in=buffer(int,64,iota)
 * warp-model: both
 * modes: both
 * note: a __noinline__ helper does a read-modify-write through a generic pointer; both blocks update the same elements.
 */
__device__ __noinline__ void accumulate(int* where, int value)
{
    *where = *where + value;                // mark: store
}

extern "C" __global__ void noinline_function_race(int* acc, const int* in)
{
    int t = threadIdx.x;
    accumulate(&acc[t], in[blockIdx.x * 32 + t]);
}
