// bfs.cu — breadth-first search from vertex 0 over a directed graph in CSR form (V vertices,
// 5 to 15 out-edges each to deterministic pseudo-random targets: about 10 V edges), one launch
// per level: each thread expands one vertex of the current frontier, claims unvisited
// neighbours with atomicCAS on their level and appends them to the next frontier through an
// atomic counter; the host reads the counter between levels. Race-free: the level array is
// only touched by atomics during a launch, and each appended slot is written once.
//   bfs [V=1048576]
#include "gr_bench.h"

__global__ void expand(const int *row_start, const int *cols, int *level, const int *frontier,
                       int frontier_size, int *next, int *next_size, int depth) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= frontier_size) return;
    int v = frontier[f];
    for (int e = row_start[v]; e < row_start[v + 1]; e++) {
        int u = cols[e];
        if (atomicCAS(&level[u], -1, depth + 1) == -1) next[atomicAdd(next_size, 1)] = u;
    }
}

int main(int argc, char **argv) {
    double t0 = gr_now_ms();
    int nv = (int)gr_arg(argc, argv, 1, 1048576);
    int *h_start = (int *)malloc((nv + 1) * sizeof(int));
    GrRng rng(31);
    h_start[0] = 0;
    for (int v = 0; v < nv; v++) h_start[v + 1] = h_start[v] + 5 + (int)rng.below(11);
    int ne = h_start[nv];
    int *h_cols = (int *)malloc(ne * sizeof(int));
    for (int e = 0; e < ne; e++) h_cols[e] = (int)rng.below(nv);
    int *h_level = (int *)malloc(nv * sizeof(int));
    for (int v = 0; v < nv; v++) h_level[v] = -1;
    h_level[0] = 0;

    int *row_start, *cols, *level, *frontier, *next, *next_size;
    CK(cudaMalloc(&row_start, (nv + 1) * sizeof(int)));
    CK(cudaMalloc(&cols, ne * sizeof(int)));
    CK(cudaMalloc(&level, nv * sizeof(int)));
    CK(cudaMalloc(&frontier, nv * sizeof(int)));
    CK(cudaMalloc(&next, nv * sizeof(int)));
    CK(cudaMalloc(&next_size, sizeof(int)));
    CK(cudaMemcpy(row_start, h_start, (nv + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(cols, h_cols, ne * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(level, h_level, nv * sizeof(int), cudaMemcpyHostToDevice));
    int zero = 0, size = 1;
    CK(cudaMemcpy(frontier, &zero, sizeof(int), cudaMemcpyHostToDevice)); // the source

    gr_load_kernels(expand);
    GrKernelTimer timer;
    int depth = 0;
    while (size > 0) {
        CK(cudaMemcpy(next_size, &zero, sizeof(int), cudaMemcpyHostToDevice));
        timer.begin();
        expand<<<(size + 255) / 256, 256>>>(row_start, cols, level, frontier, size, next,
                                            next_size, depth);
        timer.launched();
        timer.end();
        CK(cudaMemcpy(&size, next_size, sizeof(int), cudaMemcpyDeviceToHost));
        int *swap = frontier;
        frontier = next;
        next = swap;
        depth++;
    }
    int *got = (int *)malloc(nv * sizeof(int));
    CK(cudaMemcpy(got, level, nv * sizeof(int), cudaMemcpyDeviceToHost));

    // Reference: a queue-based BFS over the whole graph; every level must match.
    int *queue = (int *)malloc(nv * sizeof(int)), head = 0, tail = 0;
    queue[tail++] = 0;
    while (head < tail) {
        int v = queue[head++];
        for (int e = h_start[v]; e < h_start[v + 1]; e++)
            if (h_level[h_cols[e]] == -1) {
                h_level[h_cols[e]] = h_level[v] + 1;
                queue[tail++] = h_cols[e];
            }
    }
    bool ok = true;
    for (int v = 0; v < nv && ok; v++)
        if (got[v] != h_level[v]) {
            fprintf(stderr, "level[%d] = %d, want %d\n", v, got[v], h_level[v]);
            ok = false;
        }
    printf("bfs: %d vertices, %d edges, %d levels, %d reached\n", nv, ne, depth - 1, tail);
    CK(cudaFree(row_start));
    CK(cudaFree(cols));
    CK(cudaFree(level));
    CK(cudaFree(frontier));
    CK(cudaFree(next));
    CK(cudaFree(next_size));
    free(h_start);
    free(h_cols);
    free(h_level);
    free(got);
    free(queue);
    return gr_finish("bfs", ne, ok, timer, t0);
}
