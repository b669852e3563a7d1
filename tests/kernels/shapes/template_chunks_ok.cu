/* gpurace-suite
 * category: shapes/template
 * expect: no-race
 * launch: grid=2 block=32 shared=0
 * args: data=buffer(int,256,iota)
 * warp-model: both
 * modes: both
 * kernel: template_chunks_ok<int, 4>
 * note: a template over the element type and chunk size; every thread scales its own chunk of N elements.
 */
template <typename T, int N>
__global__ void template_chunks_ok(T* data)
{
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * N;
#pragma unroll
    for (int k = 0; k < N; ++k)
        data[base + k] = data[base + k] * T(3);   // mark: store
}

template __global__ void template_chunks_ok<int, 4>(int* data);
