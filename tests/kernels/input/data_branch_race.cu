/* gpurace-suite
 * category: input/branch
 * expect: race
 * race-class: race
 * race-lines: 18 18
 * launch: search
 * spec: grid=1 block=1..64 data=buffer(int,64,range:-4..4) flag=buffer(int,1)
 * baseline: grid=1 block=32 shared=0 data=buffer(int,64,zeros) flag=buffer(int,1)
 * witness: grid=1 block=32 shared=0 data=buffer(int,64,const:-1) flag=buffer(int,1)
 * warp-model: both
 * modes: both
 * note: threads whose element is negative record their id in one flag word; two negatives make a race.
 */
extern "C" __global__ void data_branch_race(const int* data, int* flag)
{
    int t = threadIdx.x;
    if (data[t] < 0)
        flag[0] = t;                        // mark: store
}
