/* gpurace-suite
 * category: tricky/granularity
 * expect: race
 * race-class: race
 * race-lines: 17 19
 * launch: grid=1 block=64 shared=0
 * args: out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: thread 0 stores the whole word while thread 40 stores one byte inside it: the byte ranges overlap.
 */
extern "C" __global__ void byte_overlap_race(int* out)
{
    __shared__ int word;
    int t = threadIdx.x;
    if (t == 0)
        word = 0x01020304;                  // mark: store
    if (t == 40)
        ((unsigned char*)&word)[2] = 0xff;  // mark: store
    __syncthreads();                        // mark: barrier
    if (t == 1)
        out[0] = word;                      // mark: load
}
