/* gpurace-suite
 * category: shapes/dynamic-shared
 * expect: no-race
 * launch: grid=1 block=64 shared=512
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: the two carved arrays are offset by a full block and do not overlap.
 */
extern "C" __global__ void dynamic_shared_carve_ok(const int* in, int* out)
{
    extern __shared__ int pool[];
    int* keys = pool;
    int* vals = pool + blockDim.x;
    int t = threadIdx.x;
    keys[t] = in[t];                        // mark: store
    vals[t] = in[t] * 2;                    // mark: store
    __syncthreads();                        // mark: barrier
    out[t] = keys[63 - t] + vals[t];        // mark: load
}
