// Blocks take turns appending to one log under a spin lock. The lock's atomics and fences have
// block scope, so the lock orders nothing between threads of different blocks.
extern "C" __global__ void append_log(int *lock, int *log, int *count) {
    if (threadIdx.x != 0) return;
    while (atomicCAS_block(lock, 0, 1) != 0) {
    }
    __threadfence_block();
    int slot = *count;
    log[slot] = blockIdx.x;
    *count = slot + 1;
    __threadfence_block();
    atomicExch_block(lock, 0);
}
