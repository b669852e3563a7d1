/* One level of a top-down breadth-first search over a CSR graph: vertices of the current
 * level claim their unvisited neighbours with atomicCAS. The plain read of level[v] races with
 * another thread's atomicCAS of the same element (the common, usually benign, BFS race): a true
 * atomic-vs-plain race, found only when some level equals `current`.
 * intended: one thread per vertex
 * expect: race 11 14 */
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
