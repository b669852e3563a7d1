// Every atomic operation, a CAS loop (float max), and a lock between blocks (spin-wait).
__device__ float atomic_max_float(float *addr, float v) {
    int *ai = (int *)addr;
    int old = *ai, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(ai, assumed, __float_as_int(v));
    } while (assumed != old);
    return __int_as_float(old);
}

extern "C" __global__ void atomics(const int *in, int *acc, unsigned *uacc, float *facc, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    atomicAdd(&acc[0], v);
    atomicSub(&acc[1], v);
    atomicMin(&acc[2], v);
    atomicMax(&acc[3], v);
    atomicAnd(&acc[4], v | 0x0ff0);
    atomicOr(&acc[5], v & 0x1111);
    atomicXor(&acc[6], v);
    atomicInc(&uacc[0], 17u);
    atomicDec(&uacc[1], 23u);
    atomicMax(&uacc[2], (unsigned)v);
    atomicAdd(&facc[0], 0.5f);
    atomic_max_float(&facc[1], (float)v * 0.25f);
    atomicExch(&acc[7], 42);
}

extern "C" __global__ void locked_counter(int *lock, volatile int *counter, int iters) {
    if (threadIdx.x != 0) return;
    for (int k = 0; k < iters; k++) {
        while (atomicCAS(lock, 0, 1) != 0) { }
        __threadfence();
        *counter = *counter + 1;
        __threadfence();
        atomicExch(lock, 0);
    }
}

extern "C" __global__ void flag_handoff(volatile int *flag, int *data, int *out) {
    // block 1 waits for block 0's flag: needs a fair schedule to finish
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) {
        data[0] = 1234;
        __threadfence();
        *flag = 1;
    } else {
        while (*flag == 0) { }
        __threadfence();
        out[0] = data[0];
    }
}
