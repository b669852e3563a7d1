/* gpurace-suite
 * category: tricky/one-writer
 * expect: no-race
 * launch: grid=2 block=64 shared=0
 * args: in=buffer(int,128,iota) out=buffer(int,128)
 * warp-model: both
 * modes: both
 * note: each thread repeatedly updates only its own global element.
 */
extern "C" __global__ void same_thread_rmw_loop_ok(const int* in, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < 4; ++k)
        out[i] = out[i] * 2 + in[(i + k) % 128];   // mark: store
}
