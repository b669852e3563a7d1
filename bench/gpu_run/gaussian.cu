// gaussian.cu — solves A x = b by Gaussian elimination without pivoting (A is made diagonally
// dominant) on the GPU, one pair of launches per pivot row t: `multipliers` computes
// m[i] = a[i][t] / a[t][t] for the rows below, `eliminate` subtracts m[i] * row t from every
// row below (and from b) and keeps m[i] in place of the eliminated a[i][t], so the matrix ends
// as L and U; back substitution runs on the host. Race-free: in a launch, row t is only read,
// and each thread writes its own element.
//   gaussian [N=4096]   (matrix: N x N elements)
#include "gr_bench.h"

__global__ void multipliers(float *m, const float *a, int n, int t) {
    int i = t + 1 + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) m[i] = a[(size_t)i * n + t] / a[(size_t)t * n + t];
}

__global__ void eliminate(float *a, float *b, const float *m, int n, int t) {
    int j = t + blockIdx.x * blockDim.x + threadIdx.x;
    int i = t + 1 + blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    float mi = m[i];
    if (j == t) {
        a[(size_t)i * n + t] = mi;
        b[i] -= mi * b[t];
    } else {
        a[(size_t)i * n + j] -= mi * a[(size_t)t * n + j];
    }
}

int main(int argc, char **argv) {
    double t0 = gr_now_ms();
    int n = (int)gr_arg(argc, argv, 1, 4096);
    size_t nn = (size_t)n * n;
    float *h_a = (float *)malloc(nn * sizeof(float)), *h_a0 = (float *)malloc(nn * sizeof(float));
    float *h_b = (float *)malloc(n * sizeof(float)), *h_b0 = (float *)malloc(n * sizeof(float));
    GrRng rng(11);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) h_a0[(size_t)i * n + j] = rng.range(-1.0f, 1.0f);
        h_a0[(size_t)i * n + i] = (float)n; // dominant diagonal: no pivoting needed
        h_b0[i] = rng.range(-1.0f, 1.0f) * n;
    }
    float *a, *b, *m;
    CK(cudaMalloc(&a, nn * sizeof(float)));
    CK(cudaMalloc(&b, n * sizeof(float)));
    CK(cudaMalloc(&m, n * sizeof(float)));
    CK(cudaMemcpy(a, h_a0, nn * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, h_b0, n * sizeof(float), cudaMemcpyHostToDevice));

    gr_load_kernels(multipliers, eliminate);
    GrKernelTimer timer;
    timer.begin();
    for (int t = 0; t < n - 1; t++) {
        int rows = n - 1 - t, cols = n - t;
        multipliers<<<(rows + 255) / 256, 256>>>(m, a, n, t);
        timer.launched();
        dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
        eliminate<<<grid, block>>>(a, b, m, n, t);
        timer.launched();
    }
    timer.end();
    CK(cudaMemcpy(h_a, a, nn * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h_b, b, n * sizeof(float), cudaMemcpyDeviceToHost));

    // Back substitution on the upper triangle the GPU left, then the residual of the original
    // system, row by row (double), and (L U)[i][j] against the original on ~20000 entries.
    double *x = (double *)malloc(n * sizeof(double));
    for (int i = n - 1; i >= 0; i--) {
        double s = h_b[i];
        for (int j = i + 1; j < n; j++) s -= (double)h_a[(size_t)i * n + j] * x[j];
        x[i] = s / h_a[(size_t)i * n + i];
    }
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        double r = -h_b0[i];
        for (int j = 0; j < n; j++) r += (double)h_a0[(size_t)i * n + j] * x[j];
        // |b| is about n; float elimination keeps the residual far below this bound.
        if (!(fabs(r) <= 1e-4 * n)) {
            fprintf(stderr, "row %d: residual %g\n", i, r);
            ok = false;
        }
    }
    GrRng pick(13);
    int samples = nn < 20000 ? (int)nn : 20000;
    for (int s = 0; s < samples && ok; s++) {
        int i = nn < 20000 ? s / n : (int)pick.below(n), j = nn < 20000 ? s % n : (int)pick.below(n);
        int top = i < j ? i : j;
        double sum = 0.0;
        for (int p = 0; p <= top; p++)
            sum += (p == i ? 1.0 : h_a[(size_t)i * n + p]) * h_a[(size_t)p * n + j];
        if (!gr_close(sum, h_a0[(size_t)i * n + j], 1e-4, 1.0)) {
            fprintf(stderr, "(LU)[%d][%d] = %g, want %g\n", i, j, sum, h_a0[(size_t)i * n + j]);
            ok = false;
        }
    }
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(m));
    free(h_a);
    free(h_a0);
    free(h_b);
    free(h_b0);
    free(x);
    return gr_finish("gaussian", (long long)nn, ok, timer, t0);
}
