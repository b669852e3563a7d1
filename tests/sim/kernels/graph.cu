// Sparse kernels: CSR SpMV and one BFS level expansion with atomics.
extern "C" __global__ void spmv_csr(int rows, const int *rowptr, const int *cols, const float *vals,
                                    const float *x, float *y) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
    for (int k = rowptr[r]; k < rowptr[r + 1]; k++) s += vals[k] * x[cols[k]];
    y[r] = s;
}

extern "C" __global__ void bfs_step(int nv, const int *rowptr, const int *cols, int *dist,
                                    int level, int *changed) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= nv || dist[v] != level) return;
    for (int k = rowptr[v]; k < rowptr[v + 1]; k++) {
        int u = cols[k];
        if (atomicCAS(&dist[u], -1, level + 1) == -1) atomicAdd(changed, 1);
    }
}
