/* gpurace-suite
 * category: input/scalar
 * expect: race
 * race-class: race
 * race-lines: 18 18
 * launch: search
 * spec: grid=1 block=1..64 limit=0..64 out=buffer(int,65)
 * baseline: grid=1 block=32 shared=0 limit=64 out=buffer(int,65)
 * witness: grid=1 block=32 shared=0 limit=8 out=buffer(int,65)
 * warp-model: both
 * modes: both
 * note: indices are clamped to limit, so every thread at or past limit writes out[limit]; it races once two threads reach the clamp.
 */
extern "C" __global__ void threshold_race(int* out, int limit)
{
    int t = threadIdx.x;
    int slot = t < limit ? t : limit;
    out[slot] = t;                          // mark: store
}
