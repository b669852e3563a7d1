/* gpurace-suite
 * category: examples/reference
 * expect: race
 * race-class: race
 * race-lines: 34 34
 * launch: grid=2 block=64 shared=0
 * args: data=buffer(int,128,random) bins=buffer(int,16) n=128
 * warp-model: both
 * modes: both
 * note: the histogram increments its bins with a plain read-modify-write; the serial reference function shows which bins come out wrong.
 */
// A histogram with a missing atomic, and the serial function that says what it should compute.
// The spec next to this file names the function ("reference": "histogram_serial"), so
//   gpurace check examples/reference/histogram_reference.cu --spec examples/reference/histogram_reference.json --oracle seqcmp
// compiles histogram_serial with NVRTC's -default-device, runs it as one thread on copies of the
// same inputs, and reports the bins whose parallel count differs from the serial one.

// The reference: plain C, no CUDA annotations; it receives the kernel's parameters. NVRTC
// refuses unannotated functions unless -default-device is given, so the reference is compiled
// with -default-device -DGPURACE_REFERENCE and kept out of ordinary builds by the #ifdef.
#ifdef GPURACE_REFERENCE
void histogram_serial(const int* data, int* bins, int n)
{
    for (int i = 0; i < n; i++)
        bins[data[i] & 15] += 1;
}
#endif

extern "C" __global__ void histogram(const int* data, int* bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    bins[data[i] & 15] += 1;                // mark: store
}
