/* gpurace-suite
 * category: benign/same-value
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,2)
 * warp-model: both
 * modes: both
 * note: after the butterfly reduction only lane 0 stores the warp total.
 */
extern "C" __global__ void leader_writes_result_ok(const int* in, int* out)
{
    int t = threadIdx.x;
    int v = in[t];
    for (int m = 16; m > 0; m >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, m);
    if ((t & 31) == 0)
        out[t / 32] = v;                    // mark: store
}
