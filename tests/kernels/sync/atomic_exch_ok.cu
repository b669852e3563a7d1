/* gpurace-suite
 * category: sync/atomic
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: slot=buffer(int,1) old=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: every thread swaps its id into one word with atomicExch and stores the previous value into its own element.
 */
extern "C" __global__ void atomic_exch_ok(int* slot, int* old)
{
    int t = threadIdx.x;
    old[t] = atomicExch(&slot[0], t + 1);   // mark: atomic
}
