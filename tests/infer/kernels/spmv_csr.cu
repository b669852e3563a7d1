/* Sparse matrix-vector product y = A x, CSR, one thread per row.
 * intended: one thread per row
 * expect: clean */
extern "C" __global__ void spmv_csr(const int *row_ptr, const int *col_idx, const float *vals,
                                    const float *x, float *y, int rows)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float dot = 0.0f;
        for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j)
            dot += vals[j] * x[col_idx[j]];
        y[row] = dot;
    }
}
