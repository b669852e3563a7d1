// One round of label propagation on a graph in CSR form: every vertex pushes its label to its
// out-neighbors, keeping the smaller one. The test runs it on rings (vertex u points to u + 1),
// where every vertex has one in-neighbor, and checks the labels. On a graph where two vertices
// point to the same vertex, both threads read and write that vertex's label unordered.
#include <cstdio>
#include <vector>

__global__ void push_labels(const int *row_offsets, const int *columns, const int *labels, int *next, int n) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n) return;
    for (int e = row_offsets[u]; e < row_offsets[u + 1]; e++) {
        int v = columns[e];
        if (labels[u] < next[v]) next[v] = labels[u]; // mark: push
    }
}

static bool test_ring(int n) {
    std::vector<int> offsets(n + 1), columns(n), labels(n), next(n);
    for (int u = 0; u < n; u++) {
        offsets[u] = u;
        columns[u] = (u + 1) % n;
        labels[u] = (u * 37) % n;
    }
    offsets[n] = n;
    int *d_offsets, *d_columns, *d_labels, *d_next;
    cudaMalloc(&d_offsets, (n + 1) * sizeof(int));
    cudaMalloc(&d_columns, n * sizeof(int));
    cudaMalloc(&d_labels, n * sizeof(int));
    cudaMalloc(&d_next, n * sizeof(int));
    cudaMemcpy(d_offsets, offsets.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_columns, columns.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_labels, labels.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_next, labels.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    const int block = 64;
    push_labels<<<(n + block - 1) / block, block>>>(d_offsets, d_columns, d_labels, d_next, n);
    cudaMemcpy(next.data(), d_next, n * sizeof(int), cudaMemcpyDeviceToHost);
    bool ok = true;
    for (int u = 0; u < n; u++) {
        int from = labels[(u + n - 1) % n];
        ok = ok && next[u] == (from < labels[u] ? from : labels[u]);
    }
    cudaFree(d_offsets);
    cudaFree(d_columns);
    cudaFree(d_labels);
    cudaFree(d_next);
    return ok;
}

int main() {
    bool ok = test_ring(100) && test_ring(37);
    printf("push_labels: test %s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
