// Bit manipulation intrinsics, integer division edge cases, carries, selects.
extern "C" __global__ void bitops(const unsigned *a, unsigned *o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = a[(i + 1) % n];
    o[10 * i + 0] = __brev(x);
    o[10 * i + 1] = __clz(x);
    o[10 * i + 2] = __ffs(x);
    o[10 * i + 3] = __popc(x);
    o[10 * i + 4] = __byte_perm(x, y, 0x5140 + (i & 0x0f0f));
    o[10 * i + 5] = __funnelshift_l(x, y, i & 31);
    o[10 * i + 6] = __funnelshift_r(x, y, i);
    o[10 * i + 7] = (x >> 7) & 0x1fu;
    o[10 * i + 8] = __umulhi(x, y) + __mulhi((int)x, (int)y);
    o[10 * i + 9] = __usad(x, y, 3) + __sad((int)x, (int)y, 1);
}

extern "C" __global__ void divs(const int *a, const int *b, int *o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    unsigned ux = (unsigned)x, uy = (unsigned)y;
    o[4 * i + 0] = y ? x / y : -1;
    o[4 * i + 1] = y ? x % y : -1;
    o[4 * i + 2] = uy ? (int)(ux / uy) : -1;
    o[4 * i + 3] = uy ? (int)(ux % uy) : -1;
}

extern "C" __global__ void carries(const unsigned *a, unsigned *o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = ((unsigned long long)a[i] << 32) | a[(i + 1) % n];
    unsigned long long y = ((unsigned long long)a[(i + 2) % n] << 32) | a[(i + 3) % n];
    unsigned lo, hi;
    asm("add.cc.u32 %0, %2, %3;\n\taddc.u32 %1, %4, %5;" : "=r"(lo), "=r"(hi)
        : "r"((unsigned)x), "r"((unsigned)y), "r"((unsigned)(x >> 32)), "r"((unsigned)(y >> 32)));
    o[4 * i + 0] = lo;
    o[4 * i + 1] = hi;
    asm("sub.cc.u32 %0, %2, %3;\n\tsubc.u32 %1, %4, %5;" : "=r"(lo), "=r"(hi)
        : "r"((unsigned)x), "r"((unsigned)y), "r"((unsigned)(x >> 32)), "r"((unsigned)(y >> 32)));
    o[4 * i + 2] = lo;
    o[4 * i + 3] = hi;
}
