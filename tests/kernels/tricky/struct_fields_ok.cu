/* gpurace-suite
 * category: tricky/disjoint
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,4,iota) out=buffer(int,2)
 * warp-model: both
 * modes: both
 * note: two threads of different warps write different fields of one shared struct; the fields do not overlap.
 */
struct Pair {
    int left;
    int right;
};

extern "C" __global__ void struct_fields_ok(const int* in, int* out)
{
    __shared__ Pair p;
    int t = threadIdx.x;
    if (t == 0)
        p.left = in[1];                     // mark: store
    if (t == 32)
        p.right = in[2];                    // mark: store
    __syncthreads();                        // mark: barrier
    if (t == 1) {
        out[0] = p.left;                    // mark: load
        out[1] = p.right;                   // mark: load
    }
}
