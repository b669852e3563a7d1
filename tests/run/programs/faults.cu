// faults.cu — one program, several ways to go wrong, chosen by argv[1]:
//   ok             a clean launch
//   oob            a kernel writes one element past its buffer; the program reports the error
//                  its next CUDA call returns
//   crash          a clean launch, then the host dereferences a null pointer
//   unimplemented  calls a runtime function gpurace does not provide (a CUDA graph)
//   spin           a kernel that never finishes (run it with a small --step-budget)
//   errors         calls that fail, and what the runtime says about them
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

// Each line: the call, the error it returned.
static int errors() {
    int *a = nullptr, host = 0;
    cudaMalloc(&a, 16 * sizeof(int));
    fill<<<1, 2048>>>(a, 15); // more threads than a block may have
    printf("launch 2048 threads: %s", cudaGetErrorName(cudaPeekAtLastError()));
    printf(" %s", cudaGetErrorName(cudaGetLastError()));
    printf(" then %s\n", cudaGetErrorName(cudaGetLastError()));
    printf("free of a bad pointer: %s\n", cudaGetErrorName(cudaFree((void *)0x1234)));
    printf("copy from a bad device pointer: %s\n",
           cudaGetErrorName(cudaMemcpy(&host, a + 4096, sizeof host, cudaMemcpyDeviceToHost)));
    printf("copy of a bad kind: %s\n",
           cudaGetErrorName(cudaMemcpy(&host, a, sizeof host, (cudaMemcpyKind)42)));
    printf("device 3: %s\n", cudaGetErrorName(cudaSetDevice(3)));
    printf("symbol that is not one: %s\n",
           cudaGetErrorName(cudaMemcpyToSymbol(&host, &host, sizeof host)));
    printf("string: %s\n", cudaGetErrorString(cudaErrorInvalidValue));
    int count = 0;
    cudaDeviceProp prop;
    cudaGetDeviceCount(&count);
    cudaGetDeviceProperties(&prop, 0);
    printf("devices: %d, compute capability %d.%d, warp %d\n", count, prop.major, prop.minor, prop.warpSize);
    printf("last error now: %s\n", cudaGetErrorName(cudaGetLastError()));
    cudaFree(a);
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "ok";
    if (strcmp(mode, "errors") == 0) return errors();
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
