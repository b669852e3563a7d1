/* gpurace-suite
 * category: benign/same-value
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,const:-1) found=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: the flag is raised with atomicOr, the race-free way to publish the same value from many threads.
 */
extern "C" __global__ void found_flag_atomic_ok(const int* in, int* found)
{
    int t = threadIdx.x;
    if (in[t] < 0)
        atomicOr(&found[0], 1);             // mark: atomic
}
