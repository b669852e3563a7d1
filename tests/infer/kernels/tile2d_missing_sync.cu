/* Buggy 2D box blur: each thread loads one element of a shared tile and reads its neighbour
 * one row below without a __syncthreads() in between. Only a block with blockDim.y > 1 shows
 * the race.
 * intended: block=16x16
 * expect: race 12 13 */
#define T 16
extern "C" __global__ void tile2d_missing_sync(const float *in, float *out, int width)
{
    __shared__ float tile[T][T];
    int x = blockIdx.x * T + threadIdx.x;
    int y = blockIdx.y * T + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    float below = threadIdx.y + 1 < blockDim.y ? tile[threadIdx.y + 1][threadIdx.x] : 0.0f;
    out[y * width + x] = 0.5f * (tile[threadIdx.y][threadIdx.x] + below);
}
