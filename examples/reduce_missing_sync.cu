/* gpurace-suite
 * category: examples/reduction
 * expect: race
 * race-class: race
 * race-lines: 28 28
 * launch: grid=2 block=128 shared=0
 * args: in=buffer(float,256,ones) out=buffer(float,2)
 * warp-model: both
 * modes: both
 * note: the tree reduction has no __syncthreads inside its loop, so a thread reads a partial sum another thread is still writing.
 */
// A shared-memory tree reduction missing the barrier inside its loop. Run:
//   gpurace check examples/reduce_missing_sync.cu --grid 2 --block 128
// Compare with reduce_fixed.cu, which adds the barrier.
#define BLOCK 128

extern "C" __global__ void reduce_sum(const float* in, float* out)
{
    __shared__ float partial[BLOCK];
    int t = threadIdx.x;
    partial[t] = in[blockIdx.x * BLOCK + t];   // mark: store
    __syncthreads();                        // mark: barrier
    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        // BUG: a __syncthreads() is needed at the end of every step; a thread may read
        // partial[t + stride] before its owner has added into it (and, below 32 lanes,
        // lanes of one warp are not in lockstep on Volta and later).
        if (t < stride)
            partial[t] += partial[t + stride];   // mark: store
    }
    if (t == 0)
        out[blockIdx.x] = partial[0];       // mark: store
}
