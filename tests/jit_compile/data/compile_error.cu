// Line 4 uses an undeclared identifier.
extern "C" __global__ void broken(int *p) {
    int i = threadIdx.x;
    p[i] = undeclared_value + i;
}
