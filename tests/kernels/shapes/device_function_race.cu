/* gpurace-suite
 * category: shapes/device-function
 * expect: race
 * race-class: race
 * race-lines: 14 19
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: the conflicting store and load sit in two small device functions inlined into the kernel; no barrier between the calls.
 */
__device__ void publish(int* slots, int t, int value)
{
    slots[t] = value;                       // mark: store
}

__device__ int peek_next(const int* slots, int t)
{
    return slots[(t + 1) % 64];             // mark: load
}

extern "C" __global__ void device_function_race(const int* in, int* out)
{
    __shared__ int slots[64];
    int t = threadIdx.x;
    publish(slots, t, in[t] + 1);
    out[t] = peek_next(slots, t);           // mark: store
}
