/* gpurace-suite
 * category: warp/legacy
 * expect: race
 * race-class: volatile-race
 * race-lines: 18 19
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: its
 * expect-lockstep: no-race
 * modes: both
 * note: warp-synchronous code relying on volatile shared memory: correct under lockstep execution, a volatile race under independent thread scheduling.
 */
extern "C" __global__ void legacy_volatile_neighbor(const int* in, int* out)
{
    __shared__ int s[32];
    volatile int* vs = s;
    int lane = threadIdx.x;
    vs[lane] = in[lane];                    // mark: store
    out[lane] = vs[(lane + 1) & 31];        // mark: load
}
