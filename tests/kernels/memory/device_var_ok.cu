/* gpurace-suite
 * category: memory/device-variable
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: in=buffer(int,64,ones)
 * warp-model: both
 * modes: both
 * note: the module __device__ counter is updated only with atomicAdd.
 */
__device__ int hits_total;

extern "C" __global__ void device_var_ok(const int* in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&hits_total, in[i]);          // mark: atomic
}
