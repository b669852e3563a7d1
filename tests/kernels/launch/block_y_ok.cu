/* gpurace-suite
 * category: launch/block-2d
 * expect: no-race
 * launch: search
 * spec: grid=1 block=1..32,1..4 in=buffer(int,128,iota) out=buffer(int,128)
 * baseline: grid=1 block=32,2 shared=0 in=buffer(int,128,iota) out=buffer(int,128)
 * warp-model: both
 * modes: both
 * note: the output index linearizes x and y, distinct for every thread of any 2D block.
 */
extern "C" __global__ void block_y_ok(const int* in, int* out)
{
    int i = threadIdx.y * blockDim.x + threadIdx.x;
    out[i] = in[i] + 1;                     // mark: store
}
