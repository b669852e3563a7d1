/* Tiled matrix multiply C = A * B on matrices passed by value as structs that carry their
 * sizes, row stride and a pointer to the elements, as in the programming guide's style.
 * intended: block=16x16, grid=(ceil(B.width/16), ceil(A.height/16)), stride >= width
 * expect: clean */
#define TILE 16

struct Matrix {
    int width;
    int height;
    int stride;
    float *elements;
};

__device__ float element(const Matrix m, int row, int col)
{
    return m.elements[row * m.stride + col];
}

__global__ void matmul_struct(Matrix A, Matrix B, Matrix C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < (A.width + TILE - 1) / TILE; ++t) {
        int a_col = t * TILE + tx, b_row = t * TILE + ty;
        As[ty][tx] = (row < A.height && a_col < A.width) ? element(A, row, a_col) : 0.0f;
        Bs[ty][tx] = (b_row < B.height && col < B.width) ? element(B, b_row, col) : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < C.height && col < C.width)
        C.elements[row * C.stride + col] = acc;
}
