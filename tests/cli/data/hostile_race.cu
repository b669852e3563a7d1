// Every thread writes out[0]: a race, reported with this file's path (test_hostile.c copies it
// into a folder with a non-ASCII name).
__global__ void racy(int *out) {
    out[0] = threadIdx.x;
}
