/* gpurace-suite
 * category: memory/global
 * expect: race
 * race-class: race
 * race-lines: 15 15
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,ones) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: every thread does a plain read-modify-write of out[0]; the load of one thread and the store of another conflict.
 */
extern "C" __global__ void global_rmw_race(const int* in, int* out)
{
    int t = threadIdx.x;
    out[0] += in[t];                        // mark: store
}
