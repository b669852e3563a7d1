// Spins forever when mode is 5 (flag is never set); otherwise every thread stores to out[0].
extern "C" __global__ void spin_or_race(volatile int *flag, int *out, int mode) {
    if (mode == 5)
        while (flag[0] == 0) {
        }
    out[0] = threadIdx.x;
}
