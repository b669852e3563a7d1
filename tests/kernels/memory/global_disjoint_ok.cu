/* gpurace-suite
 * category: memory/global
 * expect: no-race
 * launch: grid=2 block=64 shared=0
 * args: in=buffer(int,128,iota) out=buffer(int,128)
 * warp-model: both
 * modes: both
 * note: every thread of the grid writes its own element of a global buffer.
 */
extern "C" __global__ void global_disjoint_ok(const int* in, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] * 2;                     // mark: store
}
