// A kernel file whose kernels call __device__ code of other files (tests/cli/test_multi_file.c):
// run as `gpurace check kernel.cu helpers.cu counters.cu --kernel K ...`.
extern __device__ void add_to(int *sums, int value); // helpers.cu
extern __device__ void note_call();                  // helpers.cu
extern __device__ int launches;                      // counters.cu

// helpers.cu has a slot_of of its own that sends every thread to slot 0
static __device__ __noinline__ int slot_of(int i) { return i; }

// Thread 0 clears the total here while the others add to it in helpers.cu.
__global__ void total(const int *values, int *sums, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    if (i == 0) sums[0] = 0;                             // mark: clear
    else add_to(sums, values[i]);                        // mark: call
}

// Race-free: each thread its own element, through this file's slot_of; one atomic count.
__global__ void own_slots(int *data, int n) {
    int i = threadIdx.x;
    if (i < n) data[slot_of(i)] += 1;
    if (i == 0) atomicAdd(&launches, 1);
}

// Every thread counts its call in helpers.cu, on a variable of counters.cu.
__global__ void count_calls(int *data) {
    data[threadIdx.x] = 1;
    note_call();
}
