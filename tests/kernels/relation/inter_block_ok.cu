/* gpurace-suite
 * category: relation/inter-block
 * expect: no-race
 * launch: grid=4 block=32 shared=0
 * args: in=buffer(int,128,iota) out=buffer(int,128)
 * warp-model: both
 * modes: both
 * note: every block reads and writes only its own slice of the global buffers.
 */
extern "C" __global__ void inter_block_ok(const int* in, int* out)
{
    int base = blockIdx.x * blockDim.x;
    int t = threadIdx.x;
    out[base + t] = in[base + (t + 1) % 32];   // mark: store
}
