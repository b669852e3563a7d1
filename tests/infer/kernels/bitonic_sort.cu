/* Bitonic sort of 256 keys by one block in shared memory.
 * intended: grid=1, block=256
 * expect: clean */
#define NKEYS 256
extern "C" __global__ void bitonic_sort(int *keys)
{
    __shared__ int s[NKEYS];
    unsigned int tid = threadIdx.x;
    s[tid] = keys[tid];
    __syncthreads();
    for (unsigned int k = 2; k <= NKEYS; k <<= 1) {
        for (unsigned int j = k >> 1; j > 0; j >>= 1) {
            unsigned int ixj = tid ^ j;
            if (ixj > tid) {
                bool up = (tid & k) == 0;
                int a = s[tid], b = s[ixj];
                if ((a > b) == up) {
                    s[tid] = b;
                    s[ixj] = a;
                }
            }
            __syncthreads();
        }
    }
    keys[tid] = s[tid];
}
