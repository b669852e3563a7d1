extern "C" __global__ void warp_ops(int *out, const int *in) {
    int v = in[threadIdx.x];
    unsigned m = __activemask();
    v += __shfl_sync(0xffffffffu, v, 3);
    v += __shfl_up_sync(0xffffffffu, v, 1);
    v += __shfl_down_sync(m, v, 2);
    v += __shfl_xor_sync(0xffffffffu, v, 16);
    int any = __any_sync(0xffffffffu, v > 10);
    int all = __all_sync(0xffffffffu, v > 0);
    unsigned b = __ballot_sync(0xffffffffu, v & 1);
    unsigned mm = __match_any_sync(0xffffffffu, v);
    int red = __reduce_add_sync(0xffffffffu, v);
    __syncwarp();
    __nanosleep(100);
    out[threadIdx.x] = v + any + all + __popc(b) + mm + red + __brev(v) + __byte_perm(v, b, 0x3210) + __funnelshift_l(v, b, 5);
}
