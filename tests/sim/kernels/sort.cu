// Bitonic sort of one block's worth of keys in shared memory.
extern "C" __global__ void bitonic(int *keys) {
    __shared__ int s[512];
    unsigned t = threadIdx.x;
    s[t] = keys[t];
    __syncthreads();
    for (unsigned k = 2; k <= blockDim.x; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned ixj = t ^ j;
            if (ixj > t) {
                bool up = (t & k) == 0;
                int a = s[t], b = s[ixj];
                if ((a > b) == up) { s[t] = b; s[ixj] = a; }
            }
            __syncthreads();
        }
    }
    keys[t] = s[t];
}
