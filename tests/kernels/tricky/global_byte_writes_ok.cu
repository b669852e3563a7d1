/* gpurace-suite
 * category: tricky/granularity
 * expect: no-race
 * launch: grid=2 block=64 shared=0
 * args: in=buffer(int,128,iota) out=buffer(u8,128)
 * warp-model: both
 * modes: both
 * note: every thread of both blocks stores one byte of a global byte array; four threads share each word but not a byte.
 */
extern "C" __global__ void global_byte_writes_ok(const int* in, unsigned char* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = (unsigned char)(in[i] * 3);    // mark: store
}
