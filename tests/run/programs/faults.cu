// faults.cu — one program, several ways to go wrong, chosen by argv[1]:
//   ok             a clean launch
//   oob            a kernel writes one element past its buffer; the program reports the error
//                  its next CUDA call returns
//   crash          a clean launch, then the host dereferences a null pointer
//   unimplemented  calls a runtime function gpurace does not provide (a CUDA graph)
//   spin           a kernel that never finishes (run it with a small --step-budget)
// Used by tests/run, built once with the shared runtime and once with the static one.
#include <cstdio>
#include <cstring>

__global__ void fill(int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) a[i] = i; // mark: oob (<= lets thread n write past the end)
}

__global__ void spin(volatile int *flag) {
    while (*flag == 0) { // mark: spin
    }
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "ok";
    int *a;
    cudaMalloc(&a, 64 * sizeof(int));
    if (strcmp(mode, "spin") == 0) {
        cudaMemset(a, 0, sizeof(int));
        spin<<<1, 1>>>(a);
    } else {
        fill<<<1, strcmp(mode, "oob") == 0 ? 96 : 64>>>(a, strcmp(mode, "oob") == 0 ? 64 : 63);
    }
    cudaError_t e = cudaDeviceSynchronize();
    printf("%s: %s\n", mode, cudaGetErrorName(e));
    if (strcmp(mode, "crash") == 0) {
        volatile int *nothing = nullptr;
        *nothing = 1;
    }
    if (strcmp(mode, "unimplemented") == 0) {
        cudaGraph_t g;
        cudaGraphCreate(&g, 0);
        printf("not reached\n");
    }
    cudaFree(a);
    return e == cudaSuccess ? 0 : 1;
}
