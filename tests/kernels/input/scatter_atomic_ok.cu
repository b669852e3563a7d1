/* gpurace-suite
 * category: input/scatter
 * expect: no-race
 * launch: search
 * spec: grid=1..2 block=1..64 n=0..128 idx=buffer(int,n,index_into:n) val=buffer(int,n,random) out=buffer(int,n)
 * baseline: grid=1 block=32 shared=0 n=32 idx=buffer(int,32,const:3) val=buffer(int,32,random) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: the scatter accumulates with atomicAdd, so duplicate indices are harmless for every input.
 */
extern "C" __global__ void scatter_atomic_ok(const int* idx, const int* val, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&out[idx[i]], val[i]);    // mark: atomic
}
