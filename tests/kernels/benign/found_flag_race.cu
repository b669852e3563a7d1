/* gpurace-suite
 * category: benign/same-value
 * expect: race
 * race-class: race
 * race-lines: 16 16
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,const:-1) found=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: every thread that sees a negative element stores 1 to the same flag; same value, still a race.
 */
extern "C" __global__ void found_flag_race(const int* in, int* found)
{
    int t = threadIdx.x;
    if (in[t] < 0)
        found[0] = 1;                       // mark: store
}
