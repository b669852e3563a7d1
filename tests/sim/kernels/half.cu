// Half and bfloat16 conversions and arithmetic done in float.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void halfconv(const float *x, unsigned short *h, unsigned short *bf,
                                    float *back, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half a = __float2half_rn(x[i]);
    __nv_bfloat16 b = __float2bfloat16_rn(x[i]);
    h[i] = __half_as_ushort(a);
    bf[i] = __bfloat16_as_ushort(b);
    back[i] = __half2float(a) + __bfloat162float(b);
}
