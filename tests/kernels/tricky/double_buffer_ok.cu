/* gpurace-suite
 * category: tricky/double-buffer
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: ping-pong buffers with one barrier per step: a step reads one buffer and writes the other, and the barrier separates consecutive steps.
 */
extern "C" __global__ void double_buffer_ok(const int* in, int* out)
{
    __shared__ int buf[2][64];
    int t = threadIdx.x;
    buf[0][t] = in[t];                      // mark: store
    __syncthreads();                        // mark: barrier
    for (int step = 0; step < 4; ++step) {
        int src = step & 1;
        buf[src ^ 1][t] = buf[src][t] + buf[src][(t + 1) % 64];   // mark: store
        __syncthreads();                    // mark: barrier
    }
    out[t] = buf[0][t];                     // mark: load
}
