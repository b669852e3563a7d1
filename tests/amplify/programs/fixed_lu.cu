// LU decomposition (Doolittle, no pivoting) of one 16 x 16 matrix in shared memory, one thread
// per row: the kernel is written for exactly one block of 16 threads and n == 16, which is how
// its program always launches it. The program factors a diagonally dominant matrix and checks
// L * U against it. Launched any other way (more threads than rows, several blocks on one
// matrix, another n) it would overrun its arrays or race, but no program of its does that.
#include <cmath>
#include <cstdio>

#define N 16

__global__ void lu_decompose(float *a, int n) {
    __shared__ float m[N][N + 1];
    int row = threadIdx.x;
    for (int j = 0; j < n; j++) m[row][j] = a[row * n + j];
    __syncthreads();
    for (int k = 0; k < n; k++) {
        if (row > k) {
            float f = m[row][k] / m[k][k];
            m[row][k] = f;
            for (int j = k + 1; j < n; j++) m[row][j] -= f * m[k][j];
        }
        __syncthreads();
    }
    for (int j = 0; j < n; j++) a[row * n + j] = m[row][j];
}

int main() {
    float a[N * N], lu[N * N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) a[i * N + j] = i == j ? 4.0f * N : (float)((i * 7 + j * 3) % 5) - 2.0f;
    float *d_a;
    cudaMalloc(&d_a, sizeof a);
    cudaMemcpy(d_a, a, sizeof a, cudaMemcpyHostToDevice);
    lu_decompose<<<1, N>>>(d_a, N);
    cudaMemcpy(lu, d_a, sizeof lu, cudaMemcpyDeviceToHost);
    cudaFree(d_a);
    float worst = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            float s = 0;
            for (int k = 0; k <= (i < j ? i : j); k++) s += (k == i ? 1.0f : lu[i * N + k]) * lu[k * N + j];
            worst = fmaxf(worst, fabsf(s - a[i * N + j]));
        }
    bool ok = worst < 1e-3f;
    printf("lu_decompose: largest error %g, test %s\n", worst, ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
