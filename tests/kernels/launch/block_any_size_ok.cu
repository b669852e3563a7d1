/* gpurace-suite
 * category: launch/block
 * expect: no-race
 * launch: search
 * spec: grid=1 block=1..128 in=buffer(int,128,iota) out=buffer(int,128)
 * baseline: grid=1 block=64 shared=0 in=buffer(int,128,iota) out=buffer(int,128)
 * warp-model: both
 * modes: both
 * note: the rotation uses __syncthreads, correct for every block size.
 */
extern "C" __global__ void block_any_size_ok(const int* in, int* out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[t];                           // mark: store
    __syncthreads();                        // mark: barrier
    out[t] = s[(t + 1) % blockDim.x];       // mark: load
}
