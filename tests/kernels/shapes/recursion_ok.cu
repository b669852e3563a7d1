/* gpurace-suite
 * category: shapes/recursion
 * expect: no-race
 * launch: grid=1 block=32 shared=0
 * args: in=buffer(int,256,iota) out=buffer(int,32)
 * warp-model: both
 * modes: both
 * note: a recursive divide-and-conquer sum over the thread's own read-only range; each thread writes its own result.
 */
__device__ int range_sum(const int* v, int lo, int hi)
{
    if (hi - lo <= 2) {
        int s = 0;
        for (int k = lo; k < hi; ++k)
            s += v[k];
        return s;
    }
    int mid = (lo + hi) / 2;
    return range_sum(v, lo, mid) + range_sum(v, mid, hi);
}

extern "C" __global__ void recursion_ok(const int* in, int* out)
{
    int t = threadIdx.x;
    out[t] = range_sum(in, t * 8, t * 8 + 8);   // mark: store
}
