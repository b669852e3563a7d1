/* gpurace-suite
 * category: sync/lock
 * expect: race
 * race-class: race
 * race-lines: 25 35
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,4,iota) out=buffer(int,1)
 * warp-model: its
 * modes: optimized
 * note: warp 0 sums a few inputs and takes the lock with fences on both sides; warp 1 takes it at once but fences only before releasing it, so when warp 1 takes the lock second nothing acquires warp 0's update: the race shows under some orders of the two warps only (check tries more than one schedule; the -G build's extra instructions change which warp wins under those schedules).
 */
extern "C" __global__ void lock_unfenced_second_race(const int* in, int* out)
{
    __shared__ int lock;
    __shared__ int total;
    int t = threadIdx.x;
    if (t == 0) {
        lock = 0;
        total = 0;
    }
    __syncthreads();                            // mark: barrier
    if (t == 32) {
        while (atomicCAS(&lock, 0, 1) != 0)     // mark: atomic
            ;
        total = total + 1;                      // mark: store
        __threadfence_block();
        atomicExch(&lock, 0);
    } else if (t == 0) {
        int part = 0;
        for (int k = 0; k < 4; k++)
            part += in[k];
        while (atomicCAS(&lock, 0, 1) != 0)
            ;
        __threadfence_block();
        total = total + part;                   // mark: store
        __threadfence_block();
        atomicExch(&lock, 0);
    }
    __syncthreads();
    if (t == 0)
        out[0] = total;
}
