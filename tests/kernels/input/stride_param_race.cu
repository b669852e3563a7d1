/* gpurace-suite
 * category: input/scalar
 * expect: race
 * race-class: race
 * race-lines: 17 17
 * launch: search
 * spec: grid=1 block=1..64 stride=0..8 out=buffer(int,64)
 * baseline: grid=1 block=32 shared=0 stride=1 out=buffer(int,64)
 * witness: grid=1 block=64 shared=0 stride=2 out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: out[(t*stride) % 64] collides for any stride that is 0 or shares a factor with 64 once enough threads run.
 */
extern "C" __global__ void stride_param_race(int* out, int stride)
{
    int t = threadIdx.x;
    out[(t * stride) & 63] = t;             // mark: store
}
