// Device functions that stay calls in -G builds: recursion, by-reference arguments, structs.
struct pair { int a; int b; };

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ void swap_minmax(int *lo, int *hi) {
    if (*lo > *hi) { int t = *lo; *lo = *hi; *hi = t; }
}

__device__ __noinline__ pair combine(pair p, int k) {
    pair r;
    r.a = p.a * k + p.b;
    r.b = p.b - k;
    return r;
}

__device__ __noinline__ float poly(float x, const float *c, int deg) {
    float acc = 0.0f;
    for (int i = deg; i >= 0; i--) acc = acc * x + c[i];
    return acc;
}

extern "C" __global__ void funcs(const int *in, int *out, float *fout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int lo = in[i], hi = in[(i + 5) % n];
    swap_minmax(&lo, &hi);
    pair p = {lo, hi};
    p = combine(p, i % 5);
    float coef[4] = {1.0f, 0.5f, 0.25f, (float)(i % 3)};
    out[3 * i + 0] = fib(i % 12);
    out[3 * i + 1] = p.a;
    out[3 * i + 2] = p.b;
    fout[i] = poly((float)(i % 7) * 0.5f, coef, 3);
}
