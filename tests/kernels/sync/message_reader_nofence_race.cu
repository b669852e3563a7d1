/* gpurace-suite
 * category: sync/fence
 * expect: race
 * race-class: race
 * race-lines: 16 28
 * launch: grid=2 block=32 shared=0
 * args: data=buffer(int,32) flag=buffer(int,1) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: only the writer fences; without a fence after the relaxed flag read the reader has no acquire, so the data read is unordered.
 */
extern "C" __global__ void message_reader_nofence_race(int* data, int* flag, int* out)
{
    int t = threadIdx.x;
    if (blockIdx.x == 0) {
        data[t] = t * 11;                   // mark: store
        __syncthreads();                    // mark: barrier
        if (t == 0) {
            __threadfence();
            atomicExch(&flag[0], 1);        // mark: atomic
        }
    } else {
        if (t == 0) {
            while (atomicAdd(&flag[0], 0) == 0)   // mark: atomic
                ;
        }
        __syncthreads();                    // mark: barrier
        out[t] = data[t];                   // mark: load
    }
}
