/* gpurace-suite
 * category: memory/shared-static
 * expect: race
 * race-class: race
 * race-lines: 16 17
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: each thread reads its neighbour's slot of a static shared array with no barrier after the neighbour's write (thread 31 reads the slot of thread 32 in the other warp).
 */
extern "C" __global__ void shared_static_race(const int* in, int* out)
{
    __shared__ int tile[64];
    int t = threadIdx.x;
    tile[t] = in[t];                        // mark: store
    out[t] = tile[(t + 1) % 64];            // mark: load
}
