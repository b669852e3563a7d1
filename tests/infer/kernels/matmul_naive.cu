/* Naive matrix multiply, one output element per thread of a 2D launch.
 * intended: block=16x16, grid covering m x n
 * expect: clean */
extern "C" __global__ void matmul_naive(const float *A, const float *B, float *C, int m, int n, int k)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m && col < n) {
        float sum = 0.0f;
        for (int i = 0; i < k; ++i)
            sum += A[row * k + i] * B[i * n + col];
        C[row * n + col] = sum;
    }
}
