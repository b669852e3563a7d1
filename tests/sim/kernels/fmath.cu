// Float and double math: IEEE operations (exact), library functions (within tolerance).
extern "C" __global__ void fmath(const float *x, float *exact, float *approx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = x[(i + 1) % n];
    exact[5 * i + 0] = __fadd_rn(a, b);
    exact[5 * i + 1] = __fmul_rz(a, b);
    exact[5 * i + 2] = a / (b + 3.0f);
    exact[5 * i + 3] = sqrtf(fabsf(a));
    exact[5 * i + 4] = fminf(a, b) - fmaxf(a, -b) + __fmaf_rn(a, b, 1.0f);
    approx[4 * i + 0] = __expf(a * 0.01f);
    approx[4 * i + 1] = __sinf(a * 0.001f);
    approx[4 * i + 2] = __logf(fabsf(a) + 1.0f);
    approx[4 * i + 3] = rsqrtf(fabsf(a) + 1.0f);
}

extern "C" __global__ void dmath(const double *x, double *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double a = x[i], b = x[(n - 1) - i];
    out[4 * i + 0] = a * b + 1.0;
    out[4 * i + 1] = a / (fabs(b) + 0.5);
    out[4 * i + 2] = sqrt(fabs(a));
    out[4 * i + 3] = floor(a) + ceil(b) + trunc(a * 0.3) + rint(b * 0.7);
}

extern "C" __global__ void conversions(const float *x, int *ints, float *back, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i];
    ints[6 * i + 0] = (int)a;
    ints[6 * i + 1] = __float2int_rn(a);
    ints[6 * i + 2] = __float2int_rd(a);
    ints[6 * i + 3] = __float2int_ru(a);
    ints[6 * i + 4] = (int)(unsigned)(a > 0 ? a : 0);
    ints[6 * i + 5] = (int)(short)(int)a;
    back[i] = (float)(int)a + (float)(unsigned char)(int)a + (float)(double)a;
}
