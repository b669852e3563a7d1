/* gpurace-suite
 * category: launch/block
 * expect: race
 * race-class: race
 * race-lines: 23 23
 * launch: search
 * spec: grid=1 block=2..64 in=buffer(int,64,iota) out=buffer(int,64)
 * baseline: grid=1 block=32 shared=0 in=buffer(int,64,iota) out=buffer(int,64)
 * witness: grid=1 block=33 shared=0 in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: its
 * expect-lockstep: no-race
 * modes: both
 * note: the folding step writes the first ceil(n/2) slots and reads from n/2 on; the ranges overlap exactly when the block size is odd.
 */
extern "C" __global__ void odd_block_race(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int n = blockDim.x;
    s[t] = in[t];                           // mark: store
    __syncthreads();                        // mark: barrier
    if (t < (n + 1) / 2)
        s[t] += s[n / 2 + t];               // mark: store
    __syncthreads();                        // mark: barrier
    out[t] = s[t];                          // mark: load
}
