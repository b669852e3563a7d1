/* gpurace-suite
 * category: other/hang
 * expect: hang
 * launch: grid=1 block=32 shared=0
 * args: flag=buffer(int,1) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: every thread polls a volatile flag that nobody writes.
 */
extern "C" __global__ void hang_volatile_flag_unset(int* flag, int* out)
{
    volatile int* vflag = flag;
    while (*vflag == 0)                     // mark: load
        ;
    out[threadIdx.x] = 1;                   // mark: store
}
