/* gpurace-suite
 * category: relation/intra-warp
 * expect: race
 * race-class: race
 * race-lines: 17 20
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,32,iota) out=buffer(int,1)
 * warp-model: its
 * modes: both
 * note: lanes 0 and 1 of one warp store to the same shared word on different lines; the fence between them orders nothing across threads.
 */
extern "C" __global__ void intra_warp_ww_race(const int* in, int* out)
{
    __shared__ int s;
    int lane = threadIdx.x;
    if (lane == 0)
        s = in[5];                          // mark: store
    __threadfence_block();
    if (lane == 1)
        s = in[7];                          // mark: store
    __syncthreads();                        // mark: barrier
    if (lane == 2)
        out[0] = s;                         // mark: load
}
