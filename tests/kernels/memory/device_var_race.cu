/* gpurace-suite
 * category: memory/device-variable
 * expect: race
 * race-class: race
 * race-lines: 17 17
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,ones)
 * warp-model: both
 * modes: both
 * note: a module __device__ counter is incremented with a plain read-modify-write by every thread.
 */
__device__ int hits;

extern "C" __global__ void device_var_race(const int* in)
{
    int t = threadIdx.x;
    hits += in[t];                          // mark: store
}
