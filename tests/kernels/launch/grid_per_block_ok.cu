/* gpurace-suite
 * category: launch/grid
 * expect: no-race
 * launch: search
 * spec: grid=1..4 block={32,64} in=buffer(int,256,random) out=buffer(int,4)
 * baseline: grid=2 block=32 shared=0 in=buffer(int,256,random) out=buffer(int,4)
 * warp-model: both
 * modes: both
 * note: each block's sum goes to its own out[blockIdx.x] for every grid size in the spec.
 */
extern "C" __global__ void grid_per_block_ok(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t]; // mark: store
    __syncthreads();                        // mark: barrier
    if (t == 0) {
        int sum = 0;
        for (int k = 0; k < (int)blockDim.x; ++k)
            sum += s[k];
        out[blockIdx.x] = sum;              // mark: store
    }
}
