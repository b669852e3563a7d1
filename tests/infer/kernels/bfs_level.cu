/* One level of a top-down breadth-first search over a CSR graph: vertices of the current
 * level claim their unvisited neighbours with atomicCAS.
 * intended: one thread per vertex
 * expect: clean */
extern "C" __global__ void bfs_level(const int *row_offsets, const int *columns, int *level,
                                     int *changed, int nvertices, int current)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= nvertices || level[v] != current) return;
    for (int e = row_offsets[v]; e < row_offsets[v + 1]; ++e) {
        int u = columns[e];
        if (atomicCAS(&level[u], -1, current + 1) == -1)
            atomicExch(changed, 1);
    }
}
