/* gpurace-suite
 * category: input/scatter
 * expect: race
 * race-class: race
 * race-lines: 19 19
 * launch: search
 * spec: grid=1 block=1..64 n=1..64 src=buffer(int,n,index_into:n) buf=buffer(int,n,random)
 * baseline: grid=1 block=32 shared=0 n=32 src=buffer(int,32,iota) buf=buffer(int,32,random)
 * witness: grid=1 block=2 shared=0 n=2 src=buffer(int,2,values:1;0) buf=buffer(int,2,random)
 * warp-model: its
 * expect-lockstep: no-race
 * modes: both
 * note: an in-place gather buf[i] = buf[src[i]]; it races as soon as some thread reads an element another thread writes (under lockstep the warp's load step precedes its store step, so lanes of one warp do not race).
 */
extern "C" __global__ void gather_inplace_race(const int* src, int* buf, int n)
{
    int i = threadIdx.x;
    if (i < n)
        buf[i] = buf[src[i]] * 2;           // mark: store
}
