/* gpurace-suite
 * category: sync/atomic
 * expect: no-race
 * launch: grid=2 block=64 shared=0
 * args: in=buffer(int,128,ones) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: all threads of both blocks add into one word with device-scope atomicAdd.
 */
extern "C" __global__ void atomic_add_ok(const int* in, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&out[0], in[i]);              // mark: atomic
}
