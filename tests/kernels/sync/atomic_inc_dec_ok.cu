/* gpurace-suite
 * category: sync/atomic
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: ring=buffer(unsigned,2) got=buffer(unsigned,64)
 * warp-model: both
 * modes: both
 * note: atomicInc with wrap-around hands out ring slots; atomicDec counts down; all accesses to the shared words are atomic.
 */
extern "C" __global__ void atomic_inc_dec_ok(unsigned* ring, unsigned* got)
{
    int t = threadIdx.x;
    got[t] = atomicInc(&ring[0], 15u);      // mark: atomic
    atomicDec(&ring[1], 100u);              // mark: atomic
}
