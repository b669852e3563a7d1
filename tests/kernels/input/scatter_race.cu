/* gpurace-suite
 * category: input/scatter
 * expect: race
 * race-class: race
 * race-lines: 18 18
 * launch: search
 * spec: grid=1..2 block=1..64 n=0..128 idx=buffer(int,n,index_into:n) val=buffer(int,n,random) out=buffer(int,n)
 * baseline: grid=1 block=32 shared=0 n=32 idx=buffer(int,32,iota) val=buffer(int,32,random) out=buffer(int,32)
 * witness: grid=1 block=32 shared=0 n=32 idx=buffer(int,32,const:3) val=buffer(int,32,random) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: scatter through an index buffer; two threads collide only when the index buffer holds a duplicate.
 */
extern "C" __global__ void scatter_race(const int* idx, const int* val, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[idx[i]] = val[i];               // mark: store
}
