#include <cstdio>
__device__ __noinline__ int helper(int a, int b) { return a * b + (a ^ b); }
__device__ __noinline__ void store_pair(float *p, float a, float b) { p[0] = a; p[1] = b; }
__device__ __forceinline__ int inl(int x) { return x * 3 + 1; } // MARK:inl_body
template <typename T, int N>
__global__ void templ(T *p) {
    T acc = 0;
    #pragma unroll
    for (int i = 0; i < N; i++) acc += p[threadIdx.x * N + i];
    p[threadIdx.x] = acc;
}
template __global__ void templ<float, 4>(float *);
template __global__ void templ<double, 2>(double *);
extern "C" __global__ void calls(int *x, float *f) {
    int v = helper(x[threadIdx.x], inl(threadIdx.x)); // MARK:call_helper
    store_pair(f + 2 * threadIdx.x, v, -v);
    if (threadIdx.x == 0) printf("block %d value %d %f\n", blockIdx.x, v, f[0]);
    if (v < 0) __trap();
}
typedef int (*binop)(int, int);
__device__ int addf(int a, int b) { return a + b; }
__device__ int subf(int a, int b) { return a - b; }
__device__ binop ops[2] = {addf, subf};
extern "C" __global__ void indirect(int *x, int k) {
    x[threadIdx.x] = ops[k & 1](x[threadIdx.x], k);
}
