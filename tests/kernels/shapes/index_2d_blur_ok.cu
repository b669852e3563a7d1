/* gpurace-suite
 * category: shapes/index-2d
 * expect: no-race
 * launch: grid=2,2 block=16,16 shared=0
 * args: src=buffer(float,1024,iota) dst=buffer(float,1024)
 * warp-model: both
 * modes: both
 * note: the out-of-place blur reads the source image and writes each destination pixel once.
 */
#define W 32

extern "C" __global__ void index_2d_blur_ok(const float* src, float* dst)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    float right = (x + 1 < W) ? src[y * W + x + 1] : src[y * W + x];
    dst[y * W + x] = 0.5f * (src[y * W + x] + right);   // mark: store
}
