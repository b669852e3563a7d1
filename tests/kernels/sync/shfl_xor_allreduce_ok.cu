/* gpurace-suite
 * category: sync/shuffle
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: a butterfly all-reduce with __shfl_xor_sync; every lane writes the total into its own element.
 */
extern "C" __global__ void shfl_xor_allreduce_ok(const int* in, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    for (int mask = 1; mask < 32; mask <<= 1)
        v += __shfl_xor_sync(0xffffffffu, v, mask);
    out[i] = v;                             // mark: store
}
