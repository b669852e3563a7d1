// Traps when mode is 3; otherwise every thread stores to out[0] (a race when blockDim.x > 1).
extern "C" __global__ void trap_or_race(int *out, int mode) {
    if (mode == 3) __trap();
    out[0] = threadIdx.x;
}
