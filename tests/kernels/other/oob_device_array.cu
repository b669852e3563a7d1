/* gpurace-suite
 * category: other/out-of-bounds
 * expect: out-of-bounds
 * launch: grid=1 block=32 shared=0
 * args: out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: a 16-entry module __device__ array is written by 32 threads.
 */
__device__ int lut[16];

extern "C" __global__ void oob_device_array(int* out)
{
    int t = threadIdx.x;
    lut[t] = t * t;                         // mark: store
    out[t] = t;                             // mark: store
}
