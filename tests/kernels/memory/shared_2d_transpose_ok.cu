/* gpurace-suite
 * category: memory/shared-static
 * expect: no-race
 * launch: grid=1 block=8,8 shared=0
 * args: in=buffer(float,64,iota) out=buffer(float,64)
 * warp-model: both
 * modes: both
 * note: the tile transpose waits at __syncthreads before reading the transposed element.
 */
extern "C" __global__ void shared_2d_transpose_ok(const float* in, float* out)
{
    __shared__ float tile[8][8];
    int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[y * 8 + x];             // mark: store
    __syncthreads();                        // mark: barrier
    out[y * 8 + x] = tile[x][y];            // mark: load
}
