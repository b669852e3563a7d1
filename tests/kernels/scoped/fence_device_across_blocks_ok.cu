/* gpurace-suite
 * category: scoped/fence
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: data=buffer(int,1) flag=buffer(int,1) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: the same message passing with device-scope __threadfence on both sides is ordered.
 */
extern "C" __global__ void fence_device_across_blocks_ok(int* data, int* flag, int* out)
{
    if (threadIdx.x != 0)
        return;
    if (blockIdx.x == 0) {
        data[0] = 123;                      // mark: store
        __threadfence();
        atomicExch(&flag[0], 1);            // mark: atomic
    } else {
        while (atomicAdd(&flag[0], 0) == 0) // mark: atomic
            ;
        __threadfence();
        out[0] = data[0];                   // mark: load
    }
}
