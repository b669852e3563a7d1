// 1-D stencil with a shared-memory halo, and a 2-D transpose through a padded shared tile.
#define R 3
#define BS 128
extern "C" __global__ void stencil1d(const int *in, int *out, int n) {
    __shared__ int tmp[BS + 2 * R];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + R;
    tmp[l] = g < n ? in[g] : 0;
    if (threadIdx.x < R) {
        tmp[l - R] = g - R >= 0 && g - R < n ? in[g - R] : 0;
        tmp[l + BS] = g + BS < n ? in[g + BS] : 0;
    }
    __syncthreads();
    int s = 0;
    for (int o = -R; o <= R; o++) s += tmp[l + o] * (o + 4);
    if (g < n) out[g] = s;
}

#define TD 32
#define ROWS 8
extern "C" __global__ void transpose(const float *in, float *out, int w, int h) {
    __shared__ float tile[TD][TD + 1];
    int x = blockIdx.x * TD + threadIdx.x, y = blockIdx.y * TD + threadIdx.y;
    for (int j = 0; j < TD; j += ROWS)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TD + threadIdx.x;
    y = blockIdx.x * TD + threadIdx.y;
    for (int j = 0; j < TD; j += ROWS)
        if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}
