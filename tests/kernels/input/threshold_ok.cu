/* gpurace-suite
 * category: input/scalar
 * expect: no-race
 * launch: search
 * spec: grid=1 block=1..64 limit=0..64 out=buffer(int,65)
 * baseline: grid=1 block=32 shared=0 limit=8 out=buffer(int,65)
 * warp-model: both
 * modes: both
 * note: threads past the limit simply do nothing; every remaining thread owns its slot.
 */
extern "C" __global__ void threshold_ok(int* out, int limit)
{
    int t = threadIdx.x;
    if (t < limit)
        out[t] = t * 2;                     // mark: store
}
