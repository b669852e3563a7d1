/* gpurace-suite
 * category: other/out-of-bounds
 * expect: out-of-bounds
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: a 32-entry static shared array is indexed by all 64 threads of the block.
 */
extern "C" __global__ void oob_shared_static(const int* in, int* out)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = in[t];                           // mark: store
    __syncthreads();                        // mark: barrier
    out[t] = s[t];                          // mark: load
}
