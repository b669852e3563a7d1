// Host code that compiles, device code that does not: the error stands.
#include <cstdio>

__global__ void broken(int *out) { out[threadIdx.x] = missing_value; }

int main() {
    printf("hello\n");
    return 0;
}
