/* gpurace-suite
 * category: other/out-of-bounds
 * expect: out-of-bounds
 * launch: grid=2 block=64 shared=0
 * args: in=buffer(int,100,iota) out=buffer(int,100) n=100
 * warp-model: both
 * modes: both
 * note: the launch covers 128 threads for 100 elements and the bounds check is missing, so threads 100-127 read and write past the end.
 */
extern "C" __global__ void oob_write_missing_guard(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] + n;                     // mark: store
}
