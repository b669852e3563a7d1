/* gpurace-suite
 * category: launch/block
 * expect: race
 * race-class: race
 * race-lines: 18 18
 * launch: search
 * spec: grid=1 block={32,64,128} in=buffer(int,128,iota) out=buffer(int,64)
 * baseline: grid=1 block=64 shared=0 in=buffer(int,128,iota) out=buffer(int,64)
 * witness: grid=1 block=128 shared=0 in=buffer(int,128,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: a 64-entry tile indexed with t & 63 is private per thread only while the block has at most 64 threads.
 */
extern "C" __global__ void fixed_tile_race(const int* in, int* out)
{
    __shared__ int tile[64];
    int t = threadIdx.x;
    tile[t & 63] = in[t];                   // mark: store
    __syncthreads();                        // mark: barrier
    if (t < 64)
        out[t] = tile[t];                   // mark: load
}
