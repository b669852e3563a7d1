/* gpurace-suite
 * category: warp/legacy
 * expect: race
 * race-class: race
 * race-lines: 17 18
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: its
 * expect-lockstep: no-race
 * modes: both
 * note: the same warp-synchronous exchange without volatile: a plain race under independent thread scheduling.
 */
extern "C" __global__ void legacy_plain_neighbor(const int* in, int* out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    s[lane] = in[lane] * 2;                 // mark: store
    out[lane] = s[31 - lane];               // mark: load
}
