/* Tiled square matrix multiply C = A * B with 16x16 shared tiles.
 * intended: block=16x16, grid=ceil(n/16) x ceil(n/16)
 * expect: clean */
#define TS 16
extern "C" __global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TS + ty;
    int col = blockIdx.x * TS + tx;
    float acc = 0.0f;
    for (int t = 0; t < (n + TS - 1) / TS; ++t) {
        As[ty][tx] = (row < n && t * TS + tx < n) ? A[row * n + t * TS + tx] : 0.0f;
        Bs[ty][tx] = (col < n && t * TS + ty < n) ? B[(t * TS + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TS; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n)
        C[row * n + col] = acc;
}
