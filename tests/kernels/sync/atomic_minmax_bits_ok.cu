/* gpurace-suite
 * category: sync/atomic
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: in=buffer(int,64,random) out=buffer(int,5)
 * warp-model: both
 * modes: both
 * note: min, max, or, and, xor atomics each on their own word; atomics never race with each other.
 */
extern "C" __global__ void atomic_minmax_bits_ok(const int* in, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    atomicMin(&out[0], v);                  // mark: atomic
    atomicMax(&out[1], v);                  // mark: atomic
    atomicOr(&out[2], v);                   // mark: atomic
    atomicAnd(&out[3], v);                  // mark: atomic
    atomicXor(&out[4], v);                  // mark: atomic
}
