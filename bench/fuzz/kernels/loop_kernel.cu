// A kernel whose per-thread instruction count grows with `iters` (bench_fuzz: execution speed).
extern "C" __global__ void loop_kernel(int *data, int iters) {
    int acc = threadIdx.x;
    for (int i = 0; i < iters; i++) acc = acc * 3 + data[(threadIdx.x + i) & 63];
    data[64 + threadIdx.x] = acc;
}
