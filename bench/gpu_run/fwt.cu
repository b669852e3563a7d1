// fwt.cu — dyadic (XOR) convolution of a 2^LOG2N signal with a 128-tap filter by fast Walsh
// transforms: transform both, multiply, transform back. A transform is one launch per
// butterfly stride of 1024 or more (`fwt_global_stage`, one butterfly per thread) and one
// launch for the ten smaller strides (`fwt_shared_stages`: 1024-element chunks in shared
// memory, a barrier between stages). Race-free: in a stage each element belongs to one
// butterfly, and the shared stages are separated by barriers.
//   fwt [LOG2N=24]
#include "gr_bench.h"

#define CHUNK_LOG2 10
#define CHUNK (1 << CHUNK_LOG2)
#define FILTER_TAPS 128

__global__ void fwt_global_stage(float *d, int log2n, int stride) {
    int b = blockIdx.x * blockDim.x + threadIdx.x; // butterfly index
    if (b >= (1 << (log2n - 1))) return;
    int lo = (b / stride) * 2 * stride + (b % stride), hi = lo + stride;
    float u = d[lo], v = d[hi];
    d[lo] = u + v;
    d[hi] = u - v;
}

__global__ void fwt_shared_stages(float *d) {
    __shared__ float s[CHUNK];
    float *chunk = d + (size_t)blockIdx.x * CHUNK;
    int t = threadIdx.x; // CHUNK / 2 threads
    s[t] = chunk[t];
    s[t + CHUNK / 2] = chunk[t + CHUNK / 2];
    for (int stride = CHUNK / 2; stride > 0; stride /= 2) {
        __syncthreads();
        int lo = (t / stride) * 2 * stride + (t % stride), hi = lo + stride;
        float u = s[lo], v = s[hi];
        s[lo] = u + v;
        s[hi] = u - v;
    }
    __syncthreads();
    chunk[t] = s[t];
    chunk[t + CHUNK / 2] = s[t + CHUNK / 2];
}

__global__ void modulate(float *d, const float *k, int n, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] *= k[i] * scale;
}

// One unnormalized Walsh-Hadamard transform of d (n = 2^log2n, n >= CHUNK).
static void fwt(float *d, int log2n, GrKernelTimer &timer) {
    int n = 1 << log2n;
    for (int stride = n / 2; stride >= CHUNK; stride /= 2) {
        fwt_global_stage<<<(n / 2 + 255) / 256, 256>>>(d, log2n, stride);
        timer.launched();
    }
    fwt_shared_stages<<<n / CHUNK, CHUNK / 2>>>(d);
    timer.launched();
}

int main(int argc, char **argv) {
    double t0 = gr_now_ms();
    int log2n = (int)gr_arg(argc, argv, 1, 24);
    if (log2n < CHUNK_LOG2 || log2n > 28) {
        fprintf(stderr, "fwt: LOG2N must be in [%d, 28]\n", CHUNK_LOG2);
        return 2;
    }
    int n = 1 << log2n;
    size_t bytes = (size_t)n * sizeof(float);
    float *h_data = (float *)malloc(bytes), *h_filter = (float *)calloc(n, sizeof(float));
    float *h_out = (float *)malloc(bytes);
    GrRng rng(23);
    for (int i = 0; i < n; i++) h_data[i] = rng.range(-1.0f, 1.0f);
    for (int i = 0; i < FILTER_TAPS; i++) h_filter[i] = rng.range(-1.0f, 1.0f);
    float *data, *filter;
    CK(cudaMalloc(&data, bytes));
    CK(cudaMalloc(&filter, bytes));
    CK(cudaMemcpy(data, h_data, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(filter, h_filter, bytes, cudaMemcpyHostToDevice));

    gr_load_kernels(fwt_global_stage, fwt_shared_stages, modulate);
    GrKernelTimer timer;
    timer.begin();
    fwt(data, log2n, timer);
    fwt(filter, log2n, timer);
    modulate<<<(n + 255) / 256, 256>>>(data, filter, n, 1.0f / n);
    timer.launched();
    fwt(data, log2n, timer);
    timer.end();
    CK(cudaMemcpy(h_out, data, bytes, cudaMemcpyDeviceToHost));

    // out[i] = sum over j of data[j] * filter[i ^ j]: 128 terms per sample with this filter.
    bool ok = true;
    double rms = 0.0;
    for (int i = 0; i < FILTER_TAPS; i++) rms += (double)h_filter[i] * h_filter[i];
    rms = sqrt(rms / 3.0); // the output's typical size: data is uniform on [-1, 1]
    GrRng pick(29);
    int samples = n < 100000 ? n : 100000;
    for (int s = 0; s < samples && ok; s++) {
        int i = n < 100000 ? s : (int)pick.below(n);
        double want = 0.0;
        for (int f = 0; f < FILTER_TAPS; f++) want += (double)h_filter[f] * h_data[i ^ f];
        if (!(fabs(h_out[i] - want) <= 1e-3 * rms)) {
            fprintf(stderr, "out[%d] = %g, want %g\n", i, h_out[i], want);
            ok = false;
        }
    }
    CK(cudaFree(data));
    CK(cudaFree(filter));
    free(h_data);
    free(h_filter);
    free(h_out);
    return gr_finish("fwt", n, ok, timer, t0);
}
