/* gpurace-suite
 * category: scoped/fence
 * expect: race
 * race-class: scoped-race
 * race-lines: 17 24
 * launch: grid=2 block=32 shared=0
 * args: data=buffer(int,1) flag=buffer(int,1) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: message passing between blocks fenced only with __threadfence_block; the device-scope atomic flag is fine but the block-scope fences do not order the data across blocks.
 */
extern "C" __global__ void fence_block_across_blocks_race(int* data, int* flag, int* out)
{
    if (threadIdx.x != 0)
        return;
    if (blockIdx.x == 0) {
        data[0] = 123;                      // mark: store
        __threadfence_block();
        atomicExch(&flag[0], 1);            // mark: atomic
    } else {
        while (atomicAdd(&flag[0], 0) == 0) // mark: atomic
            ;
        __threadfence_block();
        out[0] = data[0];                   // mark: load
    }
}
