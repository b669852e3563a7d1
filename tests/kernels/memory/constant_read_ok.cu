/* gpurace-suite
 * category: memory/constant
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: __constant__ coefficients are only read; each thread writes its own output element.
 */
__constant__ int coeff[4] = {1, 2, 3, 4};

extern "C" __global__ void constant_read_ok(const int* in, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = coeff[i & 3] * in[i];          // mark: store
}
