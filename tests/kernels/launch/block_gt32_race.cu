/* gpurace-suite
 * category: launch/block
 * expect: race
 * race-class: race
 * race-lines: 18 20
 * launch: search
 * spec: grid=1 block={32,64} in=buffer(int,64,iota) out=buffer(int,64)
 * baseline: grid=1 block=32 shared=0 in=buffer(int,64,iota) out=buffer(int,64)
 * witness: grid=1 block=64 shared=0 in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: code written for one warp uses __syncwarp; with more than 32 threads the rotation crosses a warp boundary.
 */
extern "C" __global__ void block_gt32_race(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];                           // mark: store
    __syncwarp();                           // mark: barrier
    out[t] = s[(t + 1) % blockDim.x];       // mark: load
}
