// Kernels that go wrong on purpose: out-of-bounds, barrier divergence, spinning, traps, races.
extern "C" __global__ void oob_global(int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = i;  // the launch gives fewer elements than threads
}

extern "C" __global__ void oob_shared(int *out, int k) {
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x + k];
}

extern "C" __global__ void early_exit_barrier(int *out, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    __syncthreads();
    out[i] = i;
}

extern "C" __global__ void divergent_barrier(int *out) {
    if (threadIdx.x < 40) {
        __syncthreads();
        out[threadIdx.x] = 1;
    } else {
        __syncthreads();
        out[threadIdx.x] = 2;
    }
}

extern "C" __global__ void spin_forever(volatile int *flag) {
    while (*flag == 0) { }
}

extern "C" __global__ void trapping(int *out) {
    if (threadIdx.x == 5) __trap();
    out[threadIdx.x] = 1;
}

extern "C" __global__ void shared_race(int *out) {
    __shared__ int s;
    if (threadIdx.x == 0) s = 0;
    s += threadIdx.x;  // no barrier, no atomics: a race between warps
    __syncthreads();
    out[threadIdx.x] = s;
}

extern "C" __global__ void shared_no_race(int *out) {
    __shared__ int s[128];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}

extern "C" __global__ void global_race(int *counter) {
    *counter = *counter + 1;  // every thread of every block: unordered read-modify-write
}

/* Warp 1 waits for a flag that warp 0 raises after some work: correct on a GPU (resident warps
 * progress), but a schedule that keeps running the waiting warp never lets warp 0 raise it. */
extern "C" __global__ void wait_for_producer(volatile int *flag, int *out) {
    if (threadIdx.x == 32) {
        while (*flag == 0) { }
        out[1] = out[0] + 1;
    } else if (threadIdx.x == 0) {
        int v = 0;
        for (int k = 0; k < 50; k++) v += k;
        out[0] = v;
        __threadfence();
        *flag = 1;
    }
}
