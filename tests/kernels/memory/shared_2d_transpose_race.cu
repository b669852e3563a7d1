/* gpurace-suite
 * category: memory/shared-static
 * expect: race
 * race-class: race
 * race-lines: 16 17
 * launch: grid=1 block=8,8 shared=0
 * args: in=buffer(float,64,iota) out=buffer(float,64)
 * warp-model: both
 * modes: both
 * note: a tile transpose in shared memory reads the transposed element before any barrier; (x,y) and (y,x) sit in different warps for some pairs.
 */
extern "C" __global__ void shared_2d_transpose_race(const float* in, float* out)
{
    __shared__ float tile[8][8];
    int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[y * 8 + x];             // mark: store
    out[y * 8 + x] = tile[x][y];            // mark: load
}
