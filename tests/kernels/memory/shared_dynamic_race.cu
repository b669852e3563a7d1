/* gpurace-suite
 * category: memory/shared-dynamic
 * expect: race
 * race-class: race
 * race-lines: 16 17
 * launch: grid=1 block=64 shared=256
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: reversing through dynamic shared memory without a barrier: thread t reads the slot thread 63-t writes.
 */
extern "C" __global__ void shared_dynamic_race(const int* in, int* out)
{
    extern __shared__ int dyn[];
    int t = threadIdx.x;
    dyn[t] = in[t];                         // mark: store
    out[t] = dyn[63 - t];                   // mark: load
}
