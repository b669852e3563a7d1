// lu.cu — blocked LU decomposition (no pivoting; the matrix is diagonally dominant) of an
// N x N matrix in place, 16x16 blocks. Step k runs three kernels: `lu_diagonal` factorizes
// diagonal block k in shared memory, `lu_perimeter` solves the blocks right of it (U) and below
// it (L) against it, `lu_internal` subtracts L-block * U-block from every trailing block, both
// staged in shared tiles. Race-free: a barrier between elimination steps inside a tile; the
// kernels of a step run one after another.
//   lu [N=4096]   (matrix: N x N elements; N a multiple of 16)
#include "gr_bench.h"

#define BS 16

__global__ void lu_diagonal(float *a, int n, int k) {
    __shared__ float t[BS][BS];
    int tx = threadIdx.x, ty = threadIdx.y;
    size_t off = (size_t)k * BS * n + (size_t)k * BS;
    t[ty][tx] = a[off + (size_t)ty * n + tx];
    for (int p = 0; p < BS - 1; p++) {
        __syncthreads();
        if (ty > p && tx == p) t[ty][p] /= t[p][p];
        __syncthreads();
        if (ty > p && tx > p) t[ty][tx] -= t[ty][p] * t[p][tx];
    }
    __syncthreads();
    a[off + (size_t)ty * n + tx] = t[ty][tx];
}

// Blocks [0, rest) solve U blocks (k, k+1+b); blocks [rest, 2 rest) solve L blocks (k+1+b, k).
__global__ void lu_perimeter(float *a, int n, int k) {
    __shared__ float d[BS][BS], t[BS][BS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int rest = gridDim.x / 2, b = blockIdx.x % rest;
    bool upper = blockIdx.x < rest;
    size_t diag = (size_t)k * BS * n + (size_t)k * BS;
    size_t off = upper ? diag + (size_t)(1 + b) * BS : diag + (size_t)(1 + b) * BS * n;
    d[ty][tx] = a[diag + (size_t)ty * n + tx];
    t[ty][tx] = a[off + (size_t)ty * n + tx];
    if (upper) { // L_kk X = T, L unit lower: forward substitution down the rows
        for (int p = 0; p < BS - 1; p++) {
            __syncthreads();
            if (ty > p) t[ty][tx] -= d[ty][p] * t[p][tx];
        }
    } else { // X U_kk = T: column by column
        for (int p = 0; p < BS; p++) {
            __syncthreads();
            if (tx == p) t[ty][p] /= d[p][p];
            __syncthreads();
            if (tx > p) t[ty][tx] -= t[ty][p] * d[p][tx];
        }
    }
    __syncthreads();
    a[off + (size_t)ty * n + tx] = t[ty][tx];
}

__global__ void lu_internal(float *a, int n, int k) {
    __shared__ float l[BS][BS], u[BS][BS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int bi = k + 1 + blockIdx.y, bj = k + 1 + blockIdx.x;
    l[ty][tx] = a[((size_t)bi * BS + ty) * n + (size_t)k * BS + tx];
    u[ty][tx] = a[((size_t)k * BS + ty) * n + (size_t)bj * BS + tx];
    __syncthreads();
    float s = 0.0f;
    for (int p = 0; p < BS; p++) s += l[ty][p] * u[p][tx];
    a[((size_t)bi * BS + ty) * n + (size_t)bj * BS + tx] -= s;
}

int main(int argc, char **argv) {
    double t0 = gr_now_ms();
    int n = (int)gr_arg(argc, argv, 1, 4096);
    if (n % BS != 0) {
        fprintf(stderr, "lu: N must be a multiple of %d\n", BS);
        return 2;
    }
    size_t nn = (size_t)n * n;
    float *h_a0 = (float *)malloc(nn * sizeof(float)), *h_lu = (float *)malloc(nn * sizeof(float));
    GrRng rng(37);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) h_a0[(size_t)i * n + j] = rng.uniform();
        h_a0[(size_t)i * n + i] += (float)n;
    }
    float *a;
    CK(cudaMalloc(&a, nn * sizeof(float)));
    CK(cudaMemcpy(a, h_a0, nn * sizeof(float), cudaMemcpyHostToDevice));

    gr_load_kernels(lu_diagonal, lu_perimeter, lu_internal);
    GrKernelTimer timer;
    int nb = n / BS;
    timer.begin();
    for (int k = 0; k < nb; k++) {
        lu_diagonal<<<1, dim3(BS, BS)>>>(a, n, k);
        timer.launched();
        int rest = nb - 1 - k;
        if (rest == 0) break;
        lu_perimeter<<<2 * rest, dim3(BS, BS)>>>(a, n, k);
        timer.launched();
        lu_internal<<<dim3(rest, rest), dim3(BS, BS)>>>(a, n, k);
        timer.launched();
    }
    timer.end();
    CK(cudaMemcpy(h_lu, a, nn * sizeof(float), cudaMemcpyDeviceToHost));

    // Sampled check: (L U)[i][j] against the original for ~20000 entries, the corners included.
    bool ok = true;
    GrRng pick(41);
    int samples = nn < 20000 ? (int)nn : 20000;
    for (int s = 0; s < samples && ok; s++) {
        int i, j;
        if (nn < 20000) {
            i = s / n;
            j = s % n;
        } else if (s < 4) {
            i = (s / 2) * (n - 1);
            j = (s % 2) * (n - 1);
        } else {
            i = (int)pick.below(n);
            j = (int)pick.below(n);
        }
        int top = i < j ? i : j;
        double sum = 0.0;
        for (int p = 0; p <= top; p++) {
            double l = p == i ? 1.0 : h_lu[(size_t)i * n + p];
            sum += l * h_lu[(size_t)p * n + j];
        }
        if (!gr_close(sum, h_a0[(size_t)i * n + j], 1e-3, 1.0)) {
            fprintf(stderr, "(LU)[%d][%d] = %g, want %g\n", i, j, sum, h_a0[(size_t)i * n + j]);
            ok = false;
        }
    }
    CK(cudaFree(a));
    free(h_a0);
    free(h_lu);
    return gr_finish("lu", (long long)nn, ok, timer, t0);
}
