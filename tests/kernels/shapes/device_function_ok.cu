/* gpurace-suite
 * category: shapes/device-function
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: the same helpers with a __syncthreads between the calls.
 */
__device__ void publish_ok(int* slots, int t, int value)
{
    slots[t] = value;                       // mark: store
}

__device__ int peek_next_ok(const int* slots, int t)
{
    return slots[(t + 1) % 64];             // mark: load
}

extern "C" __global__ void device_function_ok(const int* in, int* out)
{
    __shared__ int slots[64];
    int t = threadIdx.x;
    publish_ok(slots, t, in[t] + 1);
    __syncthreads();                        // mark: barrier
    out[t] = peek_next_ok(slots, t);        // mark: store
}
