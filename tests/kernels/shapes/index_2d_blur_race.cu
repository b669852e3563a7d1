/* gpurace-suite
 * category: shapes/index-2d
 * expect: race
 * race-class: race
 * race-lines: 19 19
 * launch: grid=2,2 block=16,16 shared=0
 * args: img=buffer(float,1024,iota)
 * warp-model: both
 * modes: both
 * note: an in-place horizontal blur on a 32x32 image: a pixel's right neighbour is read while the neighbour's thread (possibly in another block) overwrites it.
 */
#define W 32

extern "C" __global__ void index_2d_blur_race(float* img)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x + 1 < W)
        img[y * W + x] = 0.5f * (img[y * W + x] + img[y * W + x + 1]);   // mark: store
}
