/* gpurace-suite
 * category: warp/legacy
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: the last-warp reduction rewritten for independent thread scheduling: every read is separated from the conflicting write by __syncwarp.
 */
extern "C" __global__ void reduce_syncwarp_ok(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];                           // mark: store
    __syncthreads();                        // mark: barrier
    if (t < 32) {
        int v = s[t] + s[t + 32];
        __syncwarp();                       // mark: barrier
        s[t] = v;                           // mark: store
        __syncwarp();                       // mark: barrier
        v = s[t] + s[t + 16];
        __syncwarp();                       // mark: barrier
        s[t] = v;                           // mark: store
        __syncwarp();                       // mark: barrier
        if (t == 0)
            out[0] = s[0] + s[1];           // mark: store
    }
}
