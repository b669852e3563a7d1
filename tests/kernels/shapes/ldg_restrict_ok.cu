/* gpurace-suite
 * category: shapes/read-only-cache
 * expect: no-race
 * launch: grid=2 block=64 shared=0
 * args: in=buffer(int,128,iota) out=buffer(int,128)
 * warp-model: both
 * modes: both
 * note: read-only loads through __ldg and __restrict__ pointers; each thread writes its own element.
 */
extern "C" __global__ void ldg_restrict_ok(const int* __restrict__ in, int* __restrict__ out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = __ldg(&in[i]) + __ldg(&in[(i + 1) % 128]);   // mark: store
}
