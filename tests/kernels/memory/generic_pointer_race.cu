/* gpurace-suite
 * category: memory/generic
 * expect: race
 * race-class: race
 * race-lines: 14 14
 * launch: grid=1 block=64 shared=0
 * args: out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: a non-inlined helper stores through a generic pointer to one shared slot; every thread of the block stores there.
 */
__device__ __noinline__ void put_value(int* where, int value)
{
    *where = value;                         // mark: store
}

extern "C" __global__ void generic_pointer_race(int* out)
{
    __shared__ int slot;
    int t = threadIdx.x;
    put_value(&slot, t);
    __syncthreads();                        // mark: barrier
    out[t] = slot;                          // mark: load
}
