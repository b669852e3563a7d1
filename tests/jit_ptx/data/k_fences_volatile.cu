__device__ volatile int flag;
__device__ int payload[4] = {1, 2, 3, 4};
__constant__ float coeffs[8] = {0.5f, 0.25f, 1.5f, -2.0f, 0, 0, 0, 1e-3f};
extern "C" __global__ void producer_consumer(int *out) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        payload[0] = 42;
        __threadfence();
        flag = 1;
    } else if (threadIdx.x == 0) {
        while (flag == 0) { }
        __threadfence_block();
        __threadfence_system();
        out[blockIdx.x] = payload[0] + (int)coeffs[blockIdx.x & 7];
    }
}
