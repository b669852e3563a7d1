// Counts byte values into 16 bins; every thread increments a bin in global memory.
extern "C" __global__ void byte_histogram(const unsigned char *data, unsigned *bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned bin = data[i] % 16u;
        bins[bin] += 1u;
    }
}
