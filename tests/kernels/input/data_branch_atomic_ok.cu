/* gpurace-suite
 * category: input/branch
 * expect: no-race
 * launch: search
 * spec: grid=1 block=1..64 data=buffer(int,64,range:-4..4) flag=buffer(int,1)
 * baseline: grid=1 block=32 shared=0 data=buffer(int,64,const:-1) flag=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: the data-dependent flag update uses atomicMax, safe for every input.
 */
extern "C" __global__ void data_branch_atomic_ok(const int* data, int* flag)
{
    int t = threadIdx.x;
    if (data[t] < 0)
        atomicMax(&flag[0], t);             // mark: atomic
}
