/* gpurace-suite
 * category: other/out-of-bounds
 * expect: out-of-bounds
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: thread 0 reads in[-1], just below the allocation.
 */
extern "C" __global__ void oob_negative_index(const int* in, int* out)
{
    int t = threadIdx.x;
    out[t] = in[t - 1] + 1;                 // mark: load
}
