// Template kernels: explicit instantiations come out without name expressions.
template <typename T>
__global__ void axpy(T *y, const T *x, T a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
template __global__ void axpy<float>(float *, const float *, float, int);
template __global__ void axpy<double>(double *, const double *, double, int);

template <int N>
__device__ int sum_first(const int *p) {
    int s = 0;
    for (int i = 0; i < N; i++) s += p[i];
    return s;
}
extern "C" __global__ void use_template(int *out, const int *in) { out[0] = sum_first<4>(in); }
