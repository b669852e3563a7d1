/* gpurace-suite
 * category: tricky/one-writer
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: thread 0 then thread 33 write the same shared word in phases separated by barriers; every reader waits for the last barrier.
 */
extern "C" __global__ void handoff_between_barriers_ok(int* out)
{
    __shared__ int owner;
    int t = threadIdx.x;
    if (t == 0)
        owner = 100;                        // mark: store
    __syncthreads();                        // mark: barrier
    if (t == 33)
        owner = owner + 1;                  // mark: store
    __syncthreads();                        // mark: barrier
    out[t] = owner;                         // mark: load
}
