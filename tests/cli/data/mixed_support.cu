// Two kernels in one file: one uses an instruction the simulator does not execute (dp4a), the
// other uses warpSize (WARP_SZ in PTX). The second must still run.
extern "C" __global__ void dot4(const int *a, const int *b, int *out) {
    int i = threadIdx.x;
    out[i] = __dp4a(a[i], b[i], 0);
}

extern "C" __global__ void lane_sum(const int *in, int *out) {
    int lane = threadIdx.x % warpSize;
    int warp = threadIdx.x / warpSize;
    if (lane == 0) out[warp] = in[threadIdx.x] + warpSize;
}
