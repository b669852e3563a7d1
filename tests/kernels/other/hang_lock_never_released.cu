/* gpurace-suite
 * category: other/hang
 * expect: hang
 * launch: grid=2 block=32 shared=0
 * args: lock=buffer(int,1) out=buffer(int,2)
 * warp-model: both
 * modes: both
 * note: thread 0 of each block takes the lock and never releases it, so the second block spins forever.
 */
extern "C" __global__ void hang_lock_never_released(int* lock, int* out)
{
    if (threadIdx.x != 0)
        return;
    while (atomicCAS(&lock[0], 0, 1) != 0)  // mark: atomic
        ;
    out[blockIdx.x] = 1;                    // mark: store
}
