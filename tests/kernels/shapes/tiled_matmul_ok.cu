/* gpurace-suite
 * category: shapes/loop
 * expect: no-race
 * launch: grid=2,2 block=8,8 shared=0
 * args: A=buffer(float,256,random) B=buffer(float,256,random) C=buffer(float,256)
 * warp-model: both
 * modes: both
 * note: a tiled 16x16 matrix product staging tiles of B in shared memory with a barrier after loading and after using each tile.
 */
#define N 16
#define TILE 8

extern "C" __global__ void tiled_matmul_ok(const float* A, const float* B, float* C)
{
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int tile = 0; tile < N / TILE; ++tile) {
        Bs[ty][tx] = B[(tile * TILE + ty) * N + col];   // mark: store
        __syncthreads();                                // mark: barrier
        for (int k = 0; k < TILE; ++k)
            sum += A[row * N + tile * TILE + k] * Bs[k][tx];   // mark: load
        __syncthreads();                                // mark: barrier
    }
    C[row * N + col] = sum;                             // mark: store
}
