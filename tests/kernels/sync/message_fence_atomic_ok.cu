/* gpurace-suite
 * category: sync/fence
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: data=buffer(int,32) flag=buffer(int,1) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: block 0 publishes data, __threadfence, atomic flag; block 1 polls the flag atomically, __threadfence, then reads: release/acquire at device scope.
 */
extern "C" __global__ void message_fence_atomic_ok(int* data, int* flag, int* out)
{
    int t = threadIdx.x;
    if (blockIdx.x == 0) {
        data[t] = t * 11;                   // mark: store
        __syncthreads();                    // mark: barrier
        if (t == 0) {
            __threadfence();
            atomicExch(&flag[0], 1);        // mark: atomic
        }
    } else {
        if (t == 0) {
            while (atomicAdd(&flag[0], 0) == 0)   // mark: atomic
                ;
            __threadfence();
        }
        __syncthreads();                    // mark: barrier
        out[t] = data[t];                   // mark: load
    }
}
