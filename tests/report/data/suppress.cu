// Source for the suppression tests: line numbers matter, edit with care.
extern "C" __global__ void plain(int *data)
{
    data[threadIdx.x] = data[threadIdx.x + 1];   // line 4: no comment
    data[0] = 1;  // gpurace: ignore race
    // gpurace: ignore out-of-bounds
    data[1] = 2;                                  // line 7: covered by the line above (OOB only)
    // gpurace: ignore rase
    data[2] = 3;                                  // line 9: misspelt class, not applied
}

// gpurace: ignore all -- this kernel is a known-racy benchmark
extern "C" __global__ void silenced(int *data)
{
    data[0] = threadIdx.x;                        // line 15
}
