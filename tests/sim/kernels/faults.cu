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
