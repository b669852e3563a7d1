// 64-bit and 16-bit integer types: mul/div/rem/shift, mul.hi, sign and zero extension.
extern "C" __global__ void int64ops(const long long *a, const unsigned long long *b, long long *o,
                                    int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long x = a[i];
    unsigned long long y = b[i];
    o[8 * i + 0] = x * (long long)y;
    o[8 * i + 1] = y ? (long long)(y / (unsigned long long)(i + 1)) : 0;
    o[8 * i + 2] = x / (long long)(i - 7 == 0 ? 3 : i - 7);
    o[8 * i + 3] = x % 1000003;
    o[8 * i + 4] = (long long)__umul64hi(y, (unsigned long long)x);
    o[8 * i + 5] = __mul64hi(x, (long long)y);
    o[8 * i + 6] = (x >> (i & 63)) ^ (long long)(y << (i % 60));
    o[8 * i + 7] = (long long)__clzll(x) + __popcll(y) * 100 + (long long)__brevll(y);
}

extern "C" __global__ void int16ops(const short *a, const unsigned short *b, short *o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    short x = a[i];
    unsigned short y = b[i];
    o[4 * i + 0] = (short)(x * 3 + (short)y);
    o[4 * i + 1] = (short)(y >> 3) | (short)(x << 2);
    o[4 * i + 2] = x < (short)y ? x : (short)y;
    o[4 * i + 3] = (short)((int)x / 7 - (int)(y % 13));
}
