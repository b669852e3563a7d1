/* gpurace-suite
 * category: relation/same-instruction
 * expect: no-race
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: the same store instruction writes a distinct element for every lane.
 */
extern "C" __global__ void same_instruction_ok(const int* in, int* out)
{
    int t = threadIdx.x;
    out[31 - t] = in[t] + 1;                // mark: store
}
