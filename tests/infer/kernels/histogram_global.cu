/* Histogram of integer keys into `nbins` bins with global atomics only.
 * intended: any launch
 * expect: clean */
extern "C" __global__ void histogram_global(const int *keys, int *bins, int n, int nbins)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int k = keys[i];
        if (k >= 0 && k < nbins)
            atomicAdd(&bins[k], 1);
    }
}
