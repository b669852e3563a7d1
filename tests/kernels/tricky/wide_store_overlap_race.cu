/* gpurace-suite
 * category: tricky/granularity
 * expect: race
 * race-class: race
 * race-lines: 16 18
 * launch: grid=1 block=64 shared=0
 * args: buf=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: warp 0 stores 64-bit words covering ints 2k and 2k+1 while warp 1 stores the odd ints with 32-bit stores.
 */
extern "C" __global__ void wide_store_overlap_race(int* buf)
{
    int t = threadIdx.x;
    if (t < 32)
        ((long long*)buf)[t] = (long long)t << 33;   // mark: store
    else
        buf[2 * (t - 32) + 1] = -t;         // mark: store
}
