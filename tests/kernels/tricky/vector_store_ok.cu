/* gpurace-suite
 * category: tricky/granularity
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(float,128,iota) out=buffer(float,128)
 * warp-model: both
 * modes: both
 * note: each thread stores one float2 covering its own two floats; vector accesses of neighbours touch disjoint bytes.
 */
extern "C" __global__ void vector_store_ok(const float* in, float* out)
{
    int t = threadIdx.x;
    float2 v = make_float2(in[2 * t] + 1.0f, in[2 * t + 1] - 1.0f);
    ((float2*)out)[t] = v;                  // mark: store
}
