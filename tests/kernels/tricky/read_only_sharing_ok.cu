/* gpurace-suite
 * category: tricky/read-only
 * expect: no-race
 * launch: grid=2 block=64 shared=0
 * args: in=buffer(int,128,iota) out=buffer(int,128)
 * warp-model: both
 * modes: both
 * note: all threads read the same input words and the same shared coefficient written before the barrier; concurrent reads never race.
 */
extern "C" __global__ void read_only_sharing_ok(const int* in, int* out)
{
    __shared__ int coeff;
    int t = threadIdx.x;
    if (t == 0)
        coeff = in[0] + 3;                  // mark: store
    __syncthreads();                        // mark: barrier
    int i = blockIdx.x * blockDim.x + t;
    out[i] = in[i] * coeff + in[1];         // mark: store
}
