/* gpurace-suite
 * category: other/out-of-bounds
 * expect: no-race
 * launch: grid=2 block=64 shared=0
 * args: in=buffer(int,100,iota) out=buffer(int,100) n=100
 * warp-model: both
 * modes: both
 * note: the same kernel with the i < n guard stays inside both allocations.
 */
extern "C" __global__ void oob_guarded_ok(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] + n;                 // mark: store
}
