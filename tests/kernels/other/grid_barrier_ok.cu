/* gpurace-suite
 * category: other/hang
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: arrived=buffer(int,1) out=buffer(int,2)
 * warp-model: both
 * modes: both
 * note: the hand-made grid barrier waits for exactly gridDim.x arrivals, which all co-resident blocks provide.
 */
extern "C" __global__ void grid_barrier_ok(int* arrived, int* out)
{
    if (threadIdx.x != 0)
        return;
    atomicAdd(&arrived[0], 1);              // mark: atomic
    while (atomicAdd(&arrived[0], 0) < (int)gridDim.x)   // mark: atomic
        ;
    out[blockIdx.x] = 1;                    // mark: store
}
