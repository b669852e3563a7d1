/* Inclusive Hillis-Steele scan of one block's worth of data with double buffering.
 * intended: grid=1, block=n<=256
 * expect: clean */
extern "C" __global__ void scan_hillis_steele(const int *in, int *out, int n)
{
    __shared__ int temp[2][256];
    int tid = threadIdx.x;
    int pout = 0, pin = 1;
    temp[pout][tid] = tid < n ? in[tid] : 0;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (tid >= offset)
            temp[pout][tid] = temp[pin][tid] + temp[pin][tid - offset];
        else
            temp[pout][tid] = temp[pin][tid];
        __syncthreads();
    }
    if (tid < n)
        out[tid] = temp[pout][tid];
}
