/* gpurace-suite
 * category: tricky/privatize
 * expect: race
 * race-class: race
 * race-lines: 19 21
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) bins=buffer(int,16)
 * warp-model: both
 * modes: both
 * note: the merge reads the private histogram with plain loads before every thread's shared atomic has finished.
 */
extern "C" __global__ void privatize_merge_early_race(const int* in, int* bins)
{
    __shared__ int local[16];
    int t = threadIdx.x;
    if (t < 16)
        local[t] = 0;                       // mark: store
    __syncthreads();                        // mark: barrier
    atomicAdd(&local[in[t] & 15], 1);       // mark: atomic
    if (t < 16)
        atomicAdd(&bins[t], local[t]);      // mark: load
}
