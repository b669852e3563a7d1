// A device variable that kernel.cu and helpers.cu use (tests/cli/test_multi_file.c).
__device__ int launches;
