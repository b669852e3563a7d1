/* Direct 2D convolution of an image with a small square filter, clamped at the borders.
 * intended: block=16x16, grid covering width x height
 * expect: clean */
extern "C" __global__ void conv2d_direct(const float *img, const float *filter, float *out,
                                         int width, int height, int fsize)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int half = fsize / 2;
    float acc = 0.0f;
    for (int fy = 0; fy < fsize; ++fy)
        for (int fx = 0; fx < fsize; ++fx) {
            int ix = min(max(x + fx - half, 0), width - 1);
            int iy = min(max(y + fy - half, 0), height - 1);
            acc += img[iy * width + ix] * filter[fy * fsize + fx];
        }
    out[y * width + x] = acc;
}
