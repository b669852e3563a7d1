/* gpurace-suite
 * category: launch/dynamic-shared
 * expect: no-race
 * launch: search
 * spec: grid=1 block={32,64} shared={64,128,256} in=buffer(int,64,iota) out=buffer(int,64)
 * baseline: grid=1 block=64 shared=128 in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: only threads that have a slot of their own store into the dynamic shared array.
 */
extern "C" __global__ void dynamic_shared_size_ok(const int* in, int* out)
{
    extern __shared__ int dyn[];
    unsigned bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
    unsigned slots = bytes / 4;
    unsigned t = threadIdx.x;
    if (t < slots)
        dyn[t] = in[t];                     // mark: store
    __syncthreads();                        // mark: barrier
    if (t < slots)
        out[t] = dyn[(t + 1) % slots];      // mark: load
}
