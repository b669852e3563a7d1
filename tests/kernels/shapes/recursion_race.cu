/* gpurace-suite
 * category: shapes/recursion
 * expect: race
 * race-class: race
 * race-lines: 15 15
 * launch: grid=1 block=32 shared=0
 * args: out=buffer(int,32) depth=3
 * warp-model: both
 * modes: both
 * note: every thread recurses to the same depth and the base case of each stores to one shared word.
 */
__device__ void descend(int* slot, int depth, int value)
{
    if (depth == 0) {
        *slot = value;                      // mark: store
        return;
    }
    descend(slot, depth - 1, value + 1);
}

extern "C" __global__ void recursion_race(int* out, int depth)
{
    __shared__ int last;
    int t = threadIdx.x;
    descend(&last, depth, t);
    __syncthreads();                        // mark: barrier
    out[t] = last;                          // mark: load
}
