// A scatter and its test: out[perm[i]] = in[i] moves every value to the place a permutation
// names. The test shuffles 0..n-1 and checks that each value arrived, for two sizes; it passes,
// and on permutations the kernel is right. Given an index array with a repeated value, two
// threads write one element of `out`: the race a permutation hides.
#include <cstdio>
#include <vector>

__global__ void scatter(const int *perm, const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[perm[i]] = in[i]; // mark: scatter
}

static bool test_scatter(int n, unsigned seed) {
    std::vector<int> perm(n);
    std::vector<float> in(n), out(n);
    for (int i = 0; i < n; i++) {
        perm[i] = i;
        in[i] = 0.5f * (float)i;
    }
    for (int i = n - 1; i > 0; i--) { // Fisher-Yates with a small LCG
        seed = seed * 1103515245u + 12345u;
        int j = (int)((seed >> 8) % (unsigned)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    int *d_perm;
    float *d_in, *d_out;
    cudaMalloc(&d_perm, n * sizeof(int));
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_perm, perm.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_out, 0, n * sizeof(float));
    const int block = 128;
    scatter<<<(n + block - 1) / block, block>>>(d_perm, d_in, d_out, n);
    cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    bool ok = true;
    for (int i = 0; i < n; i++) ok = ok && out[perm[i]] == in[i];
    cudaFree(d_perm);
    cudaFree(d_in);
    cudaFree(d_out);
    return ok;
}

int main() {
    bool ok = test_scatter(1000, 7u) && test_scatter(300, 11u);
    printf("scatter: test %s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
