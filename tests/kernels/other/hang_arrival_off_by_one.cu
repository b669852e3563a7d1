/* gpurace-suite
 * category: other/hang
 * expect: hang
 * launch: grid=2 block=32 shared=0
 * args: arrived=buffer(int,1) out=buffer(int,2)
 * warp-model: both
 * modes: both
 * note: a hand-made grid barrier waits for gridDim.x + 1 arrivals but only gridDim.x blocks exist.
 */
extern "C" __global__ void hang_arrival_off_by_one(int* arrived, int* out)
{
    if (threadIdx.x != 0)
        return;
    atomicAdd(&arrived[0], 1);              // mark: atomic
    while (atomicAdd(&arrived[0], 0) < (int)gridDim.x + 1)   // mark: atomic
        ;
    out[blockIdx.x] = 1;                    // mark: store
}
