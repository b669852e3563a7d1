/* In-place LU factorization (no pivoting) of one 16x16 diagonal block, as the first step of a
 * blocked LU: one thread per element.
 * intended: grid=1, block=16x16
 * expect: clean */
#define B 16
extern "C" __global__ void lu_block(float *a, int lda)
{
    __shared__ float s[B][B];
    int r = threadIdx.y, c = threadIdx.x;
    s[r][c] = a[r * lda + c];
    __syncthreads();
    for (int k = 0; k < B - 1; ++k) {
        if (r > k && c == k)
            s[r][k] /= s[k][k];
        __syncthreads();
        if (r > k && c > k)
            s[r][c] -= s[r][k] * s[k][c];
        __syncthreads();
    }
    a[r * lda + c] = s[r][c];
}
