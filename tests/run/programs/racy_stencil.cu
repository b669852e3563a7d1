// racy_stencil.cu — a 1D moving-average stencil through shared memory whose halo loads are not
// followed by __syncthreads(): threads read neighbours' elements that other warps may not have
// written yet. It launches a race-free kernel twice first, so the racy launch is the program's
// third. Used by tests/run; the `mark:` comments name the lines of the race.
#include <cstdio>

#define RADIUS 2
#define BLOCK 64

__global__ void ramp(float *x, int n, float step) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = i * step;
}

__global__ void average(const float *in, float *out, int n) {
    __shared__ float window[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x, l = threadIdx.x + RADIUS;
    window[l] = g < n ? in[g] : 0.0f; // mark: store
    if (threadIdx.x < RADIUS) {
        window[l - RADIUS] = g >= RADIUS ? in[g - RADIUS] : 0.0f; // mark: store
        window[l + BLOCK] = g + BLOCK < n ? in[g + BLOCK] : 0.0f; // mark: store
    }
    // missing: __syncthreads();
    float sum = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; k++) sum += window[l + k]; // mark: load
    if (g < n) out[g] = sum / (2 * RADIUS + 1);
}

int main() {
    const int n = 4 * BLOCK;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    ramp<<<n / BLOCK, BLOCK>>>(out, n, 0.0f);
    ramp<<<n / BLOCK, BLOCK>>>(in, n, 1.0f);
    average<<<n / BLOCK, BLOCK>>>(in, out, n);
    float h[4 * BLOCK];
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    printf("out[100] = %.1f\n", h[100]);
    cudaFree(in);
    cudaFree(out);
    return 0;
}
