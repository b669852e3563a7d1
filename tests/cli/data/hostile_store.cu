// Each thread stores into its own element: no race. The numeric-flag tests of test_hostile.c
// launch it with values at and past the edges of each flag's range.
__global__ void store(int *out, int n, float scale) {
    int i = threadIdx.x;
    if (i < n) out[i] = (int)(i * scale);
}
