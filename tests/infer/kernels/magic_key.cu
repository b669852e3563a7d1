/* Buggy record updater: when the header holds the magic key, every thread writes the header's
 * checksum slot without synchronization.
 * intended: block=64
 * expect: race 11 */
extern "C" __global__ void magic_key(const int *key, int *records, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    records[i + 1] = records[i + 1] * 2;
    if (key[0] == 0x5EED)
        records[0] = records[0] + i;
}
