// Rotates values by one lane inside each warp through shared memory.
extern "C" __global__ void warp_rotate(const int *in, int *out) {
    __shared__ int slot[256];
    int t = threadIdx.x;
    int lane = t % 32;
    int base = t - lane;
    slot[t] = in[blockIdx.x * blockDim.x + t];
    int next = slot[base + (lane + 1) % 32];
    out[blockIdx.x * blockDim.x + t] = next;
}
