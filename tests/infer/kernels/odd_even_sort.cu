/* Odd-even transposition sort of n <= 2 * blockDim.x values by one block, in global memory.
 * intended: grid=1, block=ceil(n/2)
 * expect: clean */
extern "C" __global__ void odd_even_sort(int *a, int n)
{
    int t = threadIdx.x;
    for (int phase = 0; phase < n; ++phase) {
        int i = 2 * t + (phase & 1);
        if (i + 1 < n && a[i] > a[i + 1]) {
            int tmp = a[i];
            a[i] = a[i + 1];
            a[i + 1] = tmp;
        }
        __syncthreads();
    }
}
