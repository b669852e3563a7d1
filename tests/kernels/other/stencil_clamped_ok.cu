/* gpurace-suite
 * category: other/out-of-bounds
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(float,64,iota) out=buffer(float,64)
 * warp-model: both
 * modes: both
 * note: the stencil clamps its neighbour indices to the array, so every read stays in bounds.
 */
extern "C" __global__ void stencil_clamped_ok(const float* in, float* out)
{
    int i = threadIdx.x;
    int lo = i > 0 ? i - 1 : 0;
    int hi = i < 63 ? i + 1 : 63;
    out[i] = 0.25f * in[lo] + 0.5f * in[i] + 0.25f * in[hi];   // mark: store
}
