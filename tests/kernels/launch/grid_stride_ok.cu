/* gpurace-suite
 * category: launch/grid
 * expect: no-race
 * launch: search
 * spec: grid=1..4 block=1..128 n=0..512 in=buffer(int,n,random) out=buffer(int,n)
 * baseline: grid=2 block=64 shared=0 n=300 in=buffer(int,300,random) out=buffer(int,300)
 * warp-model: both
 * modes: both
 * note: a grid-stride loop gives every element to exactly one thread for any launch.
 */
extern "C" __global__ void grid_stride_ok(const int* in, int* out, int n)
{
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = in[i] * 3;                 // mark: store
}
