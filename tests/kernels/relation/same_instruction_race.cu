/* gpurace-suite
 * category: relation/same-instruction
 * expect: race
 * race-class: race
 * race-lines: 15 15
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,4)
 * warp-model: both
 * modes: both
 * note: pairs of lanes store to the same element in one instruction (t/8 collides for 8 lanes); a same-instruction race in every warp model.
 */
extern "C" __global__ void same_instruction_race(const int* in, int* out)
{
    int t = threadIdx.x;
    out[t / 8] = in[t];                     // mark: store
}
