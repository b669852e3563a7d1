// Device functions kernel.cu calls (tests/cli/test_multi_file.c).
extern __device__ int launches; // counters.cu

// the same name as kernel.cu's, a different function: every thread gets slot 0
static __device__ __noinline__ int slot_of(int) { return 0; }

// inlined into add_to: the race is reported on this line
static __device__ __forceinline__ void bump(int *p, int v) {
    *p += v;                                             // mark: add
}

__device__ void add_to(int *sums, int value) {
    bump(&sums[slot_of(value)], value);
}

__device__ void note_call() {
    launches += 1;                                       // mark: note
}
