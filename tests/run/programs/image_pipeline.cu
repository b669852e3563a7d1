// image_pipeline.cu — a race-free multi-kernel program in the style of the CUDA samples: a
// small image goes through a tiled transpose (2D grid, static shared memory), a brightness
// scale through constant memory and templates, a block reduction in dynamic shared memory, and
// a histogram whose bin count lives in a __device__ variable. Two streams and events order the
// work; pinned, managed and pitched memory carry the data. The program checks every result
// against the CPU and prints one line per stage. Used by tests/run (gpurace run).
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            printf("CUDA error %s at line %d: %s\n", cudaGetErrorName(e_), __LINE__,       \
                   cudaGetErrorString(e_));                                                \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

enum { W = 48, H = 40, TILE = 16, BINS = 8 };

__constant__ float c_gain[2];          // gain and offset, set with cudaMemcpyToSymbol
__device__ unsigned int d_samples;     // counted by the histogram kernel
__managed__ int m_calls;               // bumped by the host and read by a kernel

__global__ void transpose_tiled(const float *in, float *out, int width, int height) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();
    int tx = blockIdx.y * TILE + threadIdx.x, ty = blockIdx.x * TILE + threadIdx.y;
    if (tx < height && ty < width) out[ty * height + tx] = tile[threadIdx.x][threadIdx.y];
}

template <typename T>
__global__ void apply_gain(T *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = (T)(data[i] * c_gain[0] + c_gain[1]);
}

__global__ void block_sum(const float *in, float *partial, int n) {
    extern __shared__ float acc[];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    acc[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) acc[t] += acc[t + s];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = acc[0];
}

__global__ void histogram(const int *values, int n, unsigned int *bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&bins[values[i] % BINS], 1u);
        atomicAdd(&d_samples, 1u);
    }
    if (i == 0) m_calls += 1;
}

int main() {
    const int n = W * H;
    float *h_img;
    CHECK(cudaMallocHost(&h_img, n * sizeof(float)));
    for (int i = 0; i < n; i++) h_img[i] = (float)((i * 7) % 31);

    // 1. transpose through a pitched copy
    float *d_img, *d_t;
    size_t pitch;
    CHECK(cudaMallocPitch(&d_img, &pitch, W * sizeof(float), H));
    float *d_dense;
    CHECK(cudaMalloc(&d_dense, n * sizeof(float)));
    CHECK(cudaMalloc(&d_t, n * sizeof(float)));
    CHECK(cudaMemcpy2D(d_img, pitch, h_img, W * sizeof(float), W * sizeof(float), H,
                       cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2D(d_dense, W * sizeof(float), d_img, pitch, W * sizeof(float), H,
                       cudaMemcpyDeviceToDevice));
    dim3 block(TILE, TILE), grid((W + TILE - 1) / TILE, (H + TILE - 1) / TILE);
    transpose_tiled<<<grid, block>>>(d_dense, d_t, W, H);
    CHECK(cudaGetLastError());
    float *h_t = (float *)malloc(n * sizeof(float));
    CHECK(cudaMemcpy(h_t, d_t, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) bad += h_t[x * H + y] != h_img[y * W + x];
    printf("transpose %dx%d: %s\n", W, H, bad ? "FAIL" : "ok");

    // 2. gain in two streams, float and int, timed with events
    float gain[2] = {2.0f, 1.0f};
    CHECK(cudaMemcpyToSymbol(c_gain, gain, sizeof gain));
    int *d_ints;
    CHECK(cudaMalloc(&d_ints, n * sizeof(int)));
    int *h_ints = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) h_ints[i] = i % 100;
    cudaStream_t s1, s2;
    cudaEvent_t start, stop;
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, s1));
    CHECK(cudaMemcpyAsync(d_ints, h_ints, n * sizeof(int), cudaMemcpyHostToDevice, s2));
    apply_gain<float><<<(n + 127) / 128, 128, 0, s1>>>(d_t, n);
    apply_gain<int><<<(n + 127) / 128, 128, 0, s2>>>(d_ints, n);
    CHECK(cudaEventRecord(stop, s1));
    CHECK(cudaStreamWaitEvent(s2, stop, 0));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaMemcpyAsync(h_t, d_t, n * sizeof(float), cudaMemcpyDeviceToHost, s1));
    CHECK(cudaMemcpyAsync(h_ints, d_ints, n * sizeof(int), cudaMemcpyDeviceToHost, s2));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaStreamSynchronize(s2));
    bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) bad += h_t[x * H + y] != h_img[y * W + x] * 2.0f + 1.0f;
    for (int i = 0; i < n; i++) bad += h_ints[i] != (i % 100) * 2 + 1;
    printf("gain float+int: %s (events %s)\n", bad ? "FAIL" : "ok", ms >= 0 ? "timed" : "untimed");

    // 3. block sums in dynamic shared memory, finished on the host
    const int threads = 256, blocks = (n + threads - 1) / threads;
    float *d_partial, *h_partial = (float *)malloc(blocks * sizeof(float));
    CHECK(cudaMalloc(&d_partial, blocks * sizeof(float)));
    block_sum<<<blocks, threads, threads * sizeof(float)>>>(d_t, d_partial, n);
    CHECK(cudaMemcpy(h_partial, d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    double total = 0, expect = 0;
    for (int b = 0; b < blocks; b++) total += h_partial[b];
    for (int i = 0; i < n; i++) expect += h_img[i] * 2.0 + 1.0;
    printf("sum of %d pixels: %.0f (%s)\n", n, total, total == expect ? "ok" : "FAIL");

    // 4. histogram of managed memory; counts come back through the __device__ variable
    int *values;
    unsigned int *bins;
    CHECK(cudaMallocManaged(&values, n * sizeof(int)));
    CHECK(cudaMallocManaged(&bins, BINS * sizeof(unsigned int)));
    for (int i = 0; i < n; i++) values[i] = (i * 13) % 97;
    for (int b = 0; b < BINS; b++) bins[b] = 0;
    m_calls = 41;
    unsigned int zero = 0;
    CHECK(cudaMemcpyToSymbol(d_samples, &zero, sizeof zero));
    histogram<<<(n + 255) / 256, 256>>>(values, n, bins);
    CHECK(cudaDeviceSynchronize());
    unsigned int samples = 0, counted = 0;
    CHECK(cudaMemcpyFromSymbol(&samples, d_samples, sizeof samples));
    bad = 0;
    for (int b = 0; b < BINS; b++) {
        unsigned int want = 0;
        for (int i = 0; i < n; i++) want += (unsigned)(values[i] % BINS) == (unsigned)b;
        bad += bins[b] != want;
        counted += bins[b];
    }
    printf("histogram: %u samples in %u bins counted %u, managed calls %d: %s\n", samples, BINS,
           counted, m_calls, bad || samples != (unsigned)n || m_calls != 42 ? "FAIL" : "ok");

    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(values));
    CHECK(cudaFree(bins));
    CHECK(cudaFree(d_img));
    CHECK(cudaFree(d_dense));
    CHECK(cudaFree(d_t));
    CHECK(cudaFree(d_ints));
    CHECK(cudaFree(d_partial));
    CHECK(cudaFreeHost(h_img));
    free(h_t);
    free(h_ints);
    free(h_partial);
    return 0;
}
