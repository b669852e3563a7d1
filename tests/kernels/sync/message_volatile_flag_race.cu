/* gpurace-suite
 * category: sync/fence
 * expect: race
 * race-class: volatile-race
 * race-lines: 20 22
 * launch: grid=2 block=32 shared=0
 * args: data=buffer(int,1) flag=buffer(int,1) out=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: legacy message passing with fences and a volatile flag: the fences order the data, but the volatile flag store and volatile polling load are themselves unordered non-atomic accesses.
 */
extern "C" __global__ void message_volatile_flag_race(int* data, int* flag, int* out)
{
    volatile int* vflag = flag;
    if (threadIdx.x != 0)
        return;
    if (blockIdx.x == 0) {
        data[0] = 42;                       // mark: store
        __threadfence();
        *vflag = 1;                         // mark: store
    } else {
        while (*vflag == 0)                 // mark: load
            ;
        __threadfence();
        out[0] = data[0];                   // mark: load
    }
}
