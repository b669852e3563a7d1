/* gpurace-suite
 * category: tricky/granularity
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: neighbouring threads store distinct bytes of the same 32-bit word; distinct bytes never conflict.
 */
extern "C" __global__ void byte_writes_ok(const int* in, int* out)
{
    __shared__ unsigned char bytes[64];
    int t = threadIdx.x;
    bytes[t] = (unsigned char)(in[t] & 0x7f);   // mark: store
    __syncthreads();                        // mark: barrier
    out[t] = bytes[63 - t];                 // mark: load
}
