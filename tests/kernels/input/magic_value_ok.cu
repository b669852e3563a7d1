/* gpurace-suite
 * category: input/magic
 * expect: no-race
 * launch: search
 * spec: grid=1 block=1..32 key=buffer(int,32,random) out=buffer(int,33)
 * baseline: grid=1 block=4 shared=0 key=buffer(int,32,values:24301;24301;0;0) out=buffer(int,33)
 * warp-model: both
 * modes: both
 * note: the magic key only changes the value a thread writes into its own slot.
 */
extern "C" __global__ void magic_value_ok(const int* key, int* out)
{
    int t = threadIdx.x;
    int v = key[t];
    out[t + 1] = (v == 0x5EED) ? -v : v;    // mark: store
}
