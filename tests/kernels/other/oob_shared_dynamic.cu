/* gpurace-suite
 * category: other/out-of-bounds
 * expect: out-of-bounds
 * launch: grid=1 block=64 shared=128
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: 128 bytes of dynamic shared memory hold 32 ints but all 64 threads store one.
 */
extern "C" __global__ void oob_shared_dynamic(const int* in, int* out)
{
    extern __shared__ int dyn[];
    int t = threadIdx.x;
    dyn[t] = in[t];                         // mark: store
    __syncthreads();                        // mark: barrier
    out[t] = dyn[t];                        // mark: load
}
