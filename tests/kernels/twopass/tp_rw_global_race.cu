/* gpurace-suite
 * category: twopass/read-write
 * expect: race
 * race-class: race
 * race-lines: 16 17
 * launch: grid=1 block=64 shared=0
 * args: buf=buffer(int,64) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: each warp reads the words the other warp stores, with no barrier between the store and the load.
 */
// Value-based two-pass checking (--oracle twopass): read-write between warps, global memory.
extern "C" __global__ void tp_rw_global_race(int* buf, int* out)
{
    int t = threadIdx.x;
    buf[t] = t + 1;                         // mark: store
    out[t] = buf[(t + 32) % 64];            // mark: load
}
