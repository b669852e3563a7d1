/* gpurace-suite
 * category: other/out-of-bounds
 * expect: out-of-bounds
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: thread 63 reads in[64], one element past the 64-element allocation.
 */
extern "C" __global__ void oob_read_past_end(const int* in, int* out)
{
    int t = threadIdx.x;
    out[t] = in[t + 1] - in[t];             // mark: load
}
