/* gpurace-suite
 * category: shapes/cxx-name
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: out=buffer(int,64) start=10
 * warp-model: both
 * modes: both
 * kernel: kernels::fill_ramp
 * note: a kernel with a C++ (mangled) name inside a namespace; every thread writes its own element.
 */
namespace kernels {

__global__ void fill_ramp(int* out, int start)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = start + i;                     // mark: store
}

}  // namespace kernels
