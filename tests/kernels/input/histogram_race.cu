/* gpurace-suite
 * category: input/histogram
 * expect: race
 * race-class: race
 * race-lines: 18 18
 * launch: search
 * spec: grid=1 block=1..64 n=1..64 nbins=1..64 data=buffer(int,n,range:0..255) bins=buffer(int,64)
 * baseline: grid=1 block=32 shared=0 n=32 nbins=32 data=buffer(int,32,iota) bins=buffer(int,64)
 * witness: grid=1 block=32 shared=0 n=32 nbins=32 data=buffer(int,32,const:5) bins=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: a histogram with a plain increment races whenever two elements fall into one bin.
 */
extern "C" __global__ void histogram_race(const int* data, int* bins, int n, int nbins)
{
    int i = threadIdx.x;
    if (i < n)
        bins[data[i] % nbins] += 1;         // mark: store
}
