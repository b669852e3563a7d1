// Two kernels in one file: replay must take the kernel from each witness.
extern "C" __global__ void scale_ok(float *v, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= s;
}

extern "C" __global__ void sum_race(const int *in, int *total, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) *total += in[i]; // every thread updates one word without an atomic
}
