/* gpurace-suite
 * category: tricky/double-buffer
 * expect: race
 * race-class: race
 * race-lines: 20 20
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: the buffer index is not flipped, so a step writes the very buffer its neighbour is still reading.
 */
extern "C" __global__ void double_buffer_same_race(const int* in, int* out)
{
    __shared__ int buf[2][64];
    int t = threadIdx.x;
    buf[0][t] = in[t];                      // mark: store
    __syncthreads();                        // mark: barrier
    for (int step = 0; step < 4; ++step) {
        int src = 0;
        buf[src][t] = buf[src][t] + buf[src][(t + 1) % 64];   // mark: store
        __syncthreads();                    // mark: barrier
    }
    out[t] = buf[0][t];                     // mark: store
}
