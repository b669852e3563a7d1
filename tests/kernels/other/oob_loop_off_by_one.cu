/* gpurace-suite
 * category: other/out-of-bounds
 * expect: out-of-bounds
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,16,ones) out=buffer(int,32) n=16
 * warp-model: both
 * modes: both
 * note: the loop bound uses <= and reads in[n], one past the end.
 */
extern "C" __global__ void oob_loop_off_by_one(const int* in, int* out, int n)
{
    int acc = 0;
    for (int k = 0; k <= n; ++k)
        acc += in[k];                       // mark: load
    out[threadIdx.x] = acc;                 // mark: store
}
