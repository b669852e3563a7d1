/* gpurace-suite
 * category: input/magic
 * expect: race
 * race-class: race
 * race-lines: 18 18
 * launch: search
 * spec: grid=1 block=1..32 key=buffer(int,32,random) out=buffer(int,33)
 * baseline: grid=1 block=32 shared=0 key=buffer(int,32,zeros) out=buffer(int,33)
 * witness: grid=1 block=4 shared=0 key=buffer(int,32,values:24301;24301;0;0) out=buffer(int,33)
 * warp-model: both
 * modes: both
 * note: a thread holding the magic key 0x5EED writes the shared slot out[0]; two magic keys collide there.
 */
extern "C" __global__ void magic_value_race(const int* key, int* out)
{
    int t = threadIdx.x;
    if (key[t] == 0x5EED)
        out[0] = t;                         // mark: store
    else
        out[t + 1] = key[t];                // mark: store
}
