// Warp votes, ballots, match, redux, activemask, and lane-divergent shuffles.
extern "C" __global__ void votes(const int *in, unsigned *ballots, int *flags) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    unsigned b = __ballot_sync(0xffffffffu, v > 0);
    int any = __any_sync(0xffffffffu, v > 100);
    int all = __all_sync(0xffffffffu, v > -1000);
    if ((threadIdx.x & 31) == 0) {
        ballots[i / 32] = b;
        flags[i / 32] = any | (all << 1) | (__popc(b) << 2);
    }
}

extern "C" __global__ void match_redux(const unsigned *in, unsigned *match, unsigned *sum,
                                       unsigned *mx, unsigned *active) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[i];
    match[i] = __match_any_sync(0xffffffffu, v);
    sum[i] = __reduce_add_sync(0xffffffffu, v);
    mx[i] = __reduce_max_sync(0xffffffffu, v);
    if (v & 1) active[i] = __activemask();
    else active[i] = 0;
}

extern "C" __global__ void odd_lanes_shuffle(const int *in, int *out) {
    int i = threadIdx.x;
    int v = in[i];
    if (i & 1) {
        // only odd lanes take part: rotate the value among them
        unsigned mask = 0xaaaaaaaau;
        int src = (i + 2) & 31;
        v = __shfl_sync(mask, v, src);
    }
    out[i] = v;
}
