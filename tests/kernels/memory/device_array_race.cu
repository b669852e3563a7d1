/* gpurace-suite
 * category: memory/device-variable
 * expect: race
 * race-class: race
 * race-lines: 17 18
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: a module __device__ table is written by one thread and read by its mirror thread with no ordering.
 */
__device__ int table[64];

extern "C" __global__ void device_array_race(const int* in, int* out)
{
    int t = threadIdx.x;
    table[t] = in[t];                       // mark: store
    out[t] = table[63 - t];                 // mark: load
}
