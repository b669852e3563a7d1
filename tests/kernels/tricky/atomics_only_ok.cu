/* gpurace-suite
 * category: tricky/atomics-only
 * expect: no-race
 * launch: grid=2 block=64 shared=0
 * args: word=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: different atomic operations on one word from both blocks; atomics of device scope never race with each other.
 */
extern "C" __global__ void atomics_only_ok(int* word)
{
    int t = threadIdx.x;
    if (t % 3 == 0)
        atomicAdd(&word[0], 5);             // mark: atomic
    else if (t % 3 == 1)
        atomicMax(&word[0], t);             // mark: atomic
    else
        atomicExch(&word[0], t);            // mark: atomic
}
