/* gpurace-suite
 * category: examples/histogram
 * expect: race
 * race-class: race
 * race-lines: 22 22
 * launch: grid=2 block=64 shared=0
 * args: data=buffer(int,128,random) bins=buffer(int,16) n=128
 * warp-model: both
 * modes: both
 * note: the histogram increments its bins with a plain read-modify-write; two threads hitting one bin race (the fix is atomicAdd).
 */
// A 16-bin histogram with a missing atomic. Run:
//   gpurace check examples/histogram_race.cu --grid 2 --block 64 --arg n=128
// gpurace reports the load and the store of line 22 in two different threads.
extern "C" __global__ void histogram(const int* data, int* bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int bin = data[i] & 15;
    // BUG: should be atomicAdd(&bins[bin], 1);
    bins[bin] += 1;                         // mark: store
}
