/* gpurace-suite
 * category: memory/shared-static
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: the neighbour read comes after __syncthreads, which orders every write of the block before it.
 */
extern "C" __global__ void shared_static_ok(const int* in, int* out)
{
    __shared__ int tile[64];
    int t = threadIdx.x;
    tile[t] = in[t];                        // mark: store
    __syncthreads();                        // mark: barrier
    out[t] = tile[(t + 1) % 64];            // mark: load
}
