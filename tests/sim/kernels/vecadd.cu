// Element-wise a*x + y over floats and ints: the simplest convergent kernel.
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void iaxpy(int n, int a, const int *x, int *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i] - (x[i] >> 3) + (x[i] % 7) / 3;
}
