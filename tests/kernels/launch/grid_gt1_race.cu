/* gpurace-suite
 * category: launch/grid
 * expect: race
 * race-class: race
 * race-lines: 24 24
 * launch: search
 * spec: grid=1..4 block={32,64} in=buffer(int,256,random) out=buffer(int,1)
 * baseline: grid=1 block=32 shared=0 in=buffer(int,256,random) out=buffer(int,1)
 * witness: grid=2 block=32 shared=0 in=buffer(int,256,random) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: each block reduces correctly but thread 0 of every block stores the block sum to out[0]; it races only with two or more blocks.
 */
extern "C" __global__ void grid_gt1_race(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t]; // mark: store
    __syncthreads();                        // mark: barrier
    if (t == 0) {
        int sum = 0;
        for (int k = 0; k < (int)blockDim.x; ++k)
            sum += s[k];
        out[0] = sum;                       // mark: store
    }
}
