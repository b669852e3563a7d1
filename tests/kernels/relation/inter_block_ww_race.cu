/* gpurace-suite
 * category: relation/inter-block
 * expect: race
 * race-class: race
 * race-lines: 15 15
 * launch: grid=2 block=32 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: both blocks store to the same 32 output elements (index ignores blockIdx).
 */
extern "C" __global__ void inter_block_ww_race(const int* in, int* out)
{
    int t = threadIdx.x;
    out[t] = in[blockIdx.x * 32 + t];       // mark: store
}
