/* gpurace-suite
 * category: launch/dynamic-shared
 * expect: race
 * race-class: race
 * race-lines: 21 21
 * launch: search
 * spec: grid=1 block={32,64} shared={64,128,256} in=buffer(int,64,iota) out=buffer(int,64)
 * baseline: grid=1 block=32 shared=128 in=buffer(int,64,iota) out=buffer(int,64)
 * witness: grid=1 block=64 shared=128 in=buffer(int,64,iota) out=buffer(int,64)
 * warp-model: both
 * modes: both
 * note: slots are derived from the dynamic shared size; when it holds fewer ints than threads, threads t and t+slots store to one slot.
 */
extern "C" __global__ void dynamic_shared_size_race(const int* in, int* out)
{
    extern __shared__ int dyn[];
    unsigned bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
    unsigned slots = bytes / 4;
    unsigned t = threadIdx.x;
    dyn[t % slots] = in[t];                 // mark: store
    __syncthreads();                        // mark: barrier
    if (t < slots)
        out[t] = dyn[t];                    // mark: load
}
