/* gpurace-suite
 * category: warp/legacy
 * expect: race
 * race-class: race
 * race-lines: 16 16
 * launch: grid=1 block=32 shared=0
 * args: out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: all lanes store different values to one shared word in one instruction; even lockstep execution does not order lanes within an instruction.
 */
extern "C" __global__ void lockstep_same_address_race(int* out)
{
    __shared__ int winner;
    int lane = threadIdx.x;
    winner = lane;                          // mark: store
    __syncthreads();                        // mark: barrier
    if (lane == 0)
        out[0] = winner;                    // mark: load
}
