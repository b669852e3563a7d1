/* gpurace-suite
 * category: launch/block-2d
 * expect: race
 * race-class: race
 * race-lines: 18 18
 * launch: search
 * spec: grid=1 block=1..32,1..4 in=buffer(int,128,iota) out=buffer(int,32)
 * baseline: grid=1 block=32,1 shared=0 in=buffer(int,128,iota) out=buffer(int,32)
 * witness: grid=1 block=32,2 shared=0 in=buffer(int,128,iota) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: the output index ignores threadIdx.y, so rows of a block with blockDim.y > 1 store to the same elements.
 */
extern "C" __global__ void block_y_race(const int* in, int* out)
{
    int x = threadIdx.x;
    int y = threadIdx.y;
    out[x] = in[y * blockDim.x + x];        // mark: store
}
