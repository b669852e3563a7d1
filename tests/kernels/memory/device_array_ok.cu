/* gpurace-suite
 * category: memory/device-variable
 * expect: no-race
 * launch: grid=1 block=64 shared=0
 * args: in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: within one block the module table is written, the block synchronizes, then mirrored slots are read.
 */
__device__ int table_ok[64];

extern "C" __global__ void device_array_ok(const int* in, int* out)
{
    int t = threadIdx.x;
    table_ok[t] = in[t];                    // mark: store
    __syncthreads();                        // mark: barrier
    out[t] = table_ok[63 - t];              // mark: load
}
