// Block 0 publishes a value and raises a flag; block 1 waits for the flag, then reads the value.
// Nothing orders the value's store before the flag for the other block.
extern "C" __global__ void publish(int *data, int *flag, int *out) {
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) {
        data[0] = 42;
        atomicExch(flag, 1);
    } else {
        while (atomicAdd(flag, 0) == 0) {
        }
        out[0] = data[0];
    }
}
