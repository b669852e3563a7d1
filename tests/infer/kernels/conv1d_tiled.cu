/* 1D convolution with a shared tile and halo cells loaded by the edge threads.
 * intended: block=128, grid=ceil(n/128)
 * expect: clean */
#define RADIUS 3
#define BLOCK 128
extern "C" __global__ void conv1d_tiled(const float *in, const float *mask, float *out, int n)
{
    __shared__ float tile[BLOCK + 2 * RADIUS];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lid = threadIdx.x + RADIUS;
    tile[lid] = gid < n ? in[gid] : 0.0f;
    if (threadIdx.x < RADIUS) {
        int left = gid - RADIUS;
        int right = gid + BLOCK;
        tile[lid - RADIUS] = left >= 0 && left < n ? in[left] : 0.0f;
        tile[lid + BLOCK] = right < n ? in[right] : 0.0f;
    }
    __syncthreads();
    if (gid < n) {
        float acc = 0.0f;
        for (int j = -RADIUS; j <= RADIUS; ++j)
            acc += tile[lid + j] * mask[j + RADIUS];
        out[gid] = acc;
    }
}
