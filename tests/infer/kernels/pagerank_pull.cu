/* One pull-style PageRank iteration: each vertex sums the contributions of its in-neighbours
 * (CSR of the transposed graph).
 * intended: one thread per vertex
 * expect: clean */
extern "C" __global__ void pagerank_pull(const int *in_offsets, const int *in_edges,
                                         const float *contrib, float *rank, int nvertices,
                                         float damping)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= nvertices) return;
    float sum = 0.0f;
    for (int e = in_offsets[v]; e < in_offsets[v + 1]; ++e)
        sum += contrib[in_edges[e]];
    rank[v] = (1.0f - damping) / nvertices + damping * sum;
}
