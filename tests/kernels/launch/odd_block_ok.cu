/* gpurace-suite
 * category: launch/block
 * expect: no-race
 * launch: search
 * spec: grid=1 block=2..64 in=buffer(int,64,iota) out=buffer(int,64)
 * baseline: grid=1 block=33 shared=0 in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: the folding step writes the first floor(n/2) slots and reads from ceil(n/2) on; disjoint for every size.
 */
extern "C" __global__ void odd_block_ok(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int n = blockDim.x;
    s[t] = in[t];                           // mark: store
    __syncthreads();                        // mark: barrier
    if (t < n / 2)
        s[t] += s[(n + 1) / 2 + t];         // mark: store
    __syncthreads();                        // mark: barrier
    out[t] = s[t];                          // mark: load
}
