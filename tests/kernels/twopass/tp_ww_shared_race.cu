/* gpurace-suite
 * category: twopass/write-write
 * expect: race
 * race-class: race
 * race-lines: 16 16
 * launch: grid=1 block=64 shared=0
 * args: out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: warps 0 and 1 store different values to the same shared words in one barrier interval.
 */
// Value-based two-pass checking (--oracle twopass): write-write between warps, shared memory.
extern "C" __global__ void tp_ww_shared_race(int* out)
{
    __shared__ int s[32];
    s[threadIdx.x % 32] = threadIdx.x;      // mark: store
    __syncthreads();                        // mark: barrier
    out[threadIdx.x] = s[threadIdx.x % 32]; // mark: store
}
