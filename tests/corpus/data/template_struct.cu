// A template kernel taking a struct by value: the reproducer passes the struct's raw bytes.
struct params {
    int offset;
    float scale;
};

template <typename T>
__global__ void shift(T *out, const T *in, params p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[(i + p.offset) % n] = in[i] * (T)p.scale;
}

template __global__ void shift<float>(float *, const float *, params, int);
