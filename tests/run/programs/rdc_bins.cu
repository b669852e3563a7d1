// rdc_bins.cu — the device code rdc_main.cu calls (built together with -rdc=true).
__device__ unsigned int calls;

// Not atomic: two threads with values in one bin read and write it together.
__device__ void add_to_bin(int *bins, int value) {
    bins[value & 7] += 1; // mark: bin
}
