/* gpurace-suite
 * category: shapes/dynamic-shared
 * expect: race
 * race-class: race
 * race-lines: 18 19
 * launch: grid=1 block=64 shared=512
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: two arrays are carved from dynamic shared memory with the second offset by half a block instead of a full block, so they overlap.
 */
extern "C" __global__ void dynamic_shared_carve_race(const int* in, int* out)
{
    extern __shared__ int pool[];
    int* keys = pool;
    int* vals = pool + blockDim.x / 2;
    int t = threadIdx.x;
    keys[t] = in[t];                        // mark: store
    vals[t] = in[t] * 2;                    // mark: store
    __syncthreads();                        // mark: barrier
    out[t] = keys[t] + vals[t];             // mark: load
}
