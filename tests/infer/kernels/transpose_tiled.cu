/* Matrix transpose through a padded shared tile (no bank conflicts), one element per thread.
 * intended: block=16x16, grid=ceil(width/16) x ceil(height/16)
 * expect: clean */
#define TILE 16
extern "C" __global__ void transpose_tiled(float *odata, const float *idata, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < width && y < height)
        tile[threadIdx.y][threadIdx.x] = idata[y * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < height && y < width)
        odata[y * height + x] = tile[threadIdx.x][threadIdx.y];
}
