/* gpurace-suite
 * category: input/graph
 * expect: no-race
 * launch: search
 * spec: grid=1 block=1..32 rows=1..32 nnz=0..128 rowptr=buffer(int,rows+1,csr_offsets:nnz) col=buffer(int,nnz,index_into:rows) x=buffer(int,rows,random) y=buffer(int,rows)
 * baseline: grid=1 block=2 shared=0 rows=2 nnz=2 rowptr=buffer(int,3,values:0;1;2) col=buffer(int,2,values:0;0) x=buffer(int,2,random) y=buffer(int,2)
 * warp-model: both
 * modes: both
 * note: push-style CSR update with atomicAdd; shared neighbours are safe.
 */
extern "C" __global__ void csr_push_atomic_ok(const int* rowptr, const int* col, const int* x, int* y, int rows, int nnz)
{
    int r = threadIdx.x;
    if (r >= rows)
        return;
    for (int e = rowptr[r]; e < rowptr[r + 1] && e < nnz; ++e)
        atomicAdd(&y[col[e]], x[r]);        // mark: atomic
}
