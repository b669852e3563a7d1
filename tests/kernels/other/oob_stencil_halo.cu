/* gpurace-suite
 * category: other/out-of-bounds
 * expect: out-of-bounds
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(float,64,iota) out=buffer(float,64)
 * warp-model: both
 * modes: both
 * note: a 3-point stencil without boundary handling reads in[-1] and in[64].
 */
extern "C" __global__ void oob_stencil_halo(const float* in, float* out)
{
    int i = threadIdx.x;
    out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];   // mark: load
}
