/* gpurace-suite
 * category: memory/generic
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: the generic-pointer helper stores to each thread's own shared slot; reads of other slots come after a barrier.
 */
__device__ __noinline__ void put_own(int* where, int value)
{
    *where = value;                         // mark: store
}

extern "C" __global__ void generic_pointer_ok(int* out)
{
    __shared__ int slots[64];
    int t = threadIdx.x;
    put_own(&slots[t], t * 3);
    __syncthreads();                        // mark: barrier
    out[t] = slots[(t + 1) % 64];           // mark: load
}
