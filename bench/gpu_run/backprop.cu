// backprop.cu — one training step of a two-layer perceptron's input layer: the forward pass
// (IN inputs x HID hidden units, each block multiplies a 16-row slab of the weight matrix in
// shared memory and tree-reduces it to per-block partial sums), the sum of the partials with
// the sigmoid and the output error, and the weight adjustment with momentum.
// Race-free: the tree reduction has a barrier between levels; each thread adjusts its own weight.
//   backprop [IN=1048576]   (weights: IN x 16 elements)
#include "gr_bench.h"

#define HID 16      // hidden units; also the block's width
#define SLAB 16     // input rows per block in the forward pass
#define ETA 0.3f
#define MOMENTUM 0.3f

// partial[b][j] = sum over the block's SLAB rows i of x[i] * w[i][j].
__global__ void layer_forward(const float *x, const float *w, float *partial, int in) {
    __shared__ float xs[SLAB];
    __shared__ float prod[SLAB][HID];
    int tx = threadIdx.x, ty = threadIdx.y; // tx: hidden unit, ty: row in the slab
    int row = blockIdx.x * SLAB + ty;
    if (tx == 0) xs[ty] = row < in ? x[row] : 0.0f;
    __syncthreads();
    prod[ty][tx] = row < in ? xs[ty] * w[(size_t)row * HID + tx] : 0.0f;
    __syncthreads();
    for (int half = SLAB / 2; half > 0; half /= 2) {
        if (ty < half) prod[ty][tx] += prod[ty + half][tx];
        __syncthreads();
    }
    if (ty == 0) partial[(size_t)blockIdx.x * HID + tx] = prod[0][tx];
}

// One block of 256 threads per hidden unit j: sums the partials, applies the sigmoid and gives
// the unit's error term for the target.
__global__ void hidden_sum(const float *partial, int nblocks, const float *target,
                           float *hidden, float *delta) {
    __shared__ float acc[256];
    int j = blockIdx.x, t = threadIdx.x;
    float s = 0.0f;
    for (int b = t; b < nblocks; b += blockDim.x) s += partial[(size_t)b * HID + j];
    acc[t] = s;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half) acc[t] += acc[t + half];
        __syncthreads();
    }
    if (t == 0) {
        float h = 1.0f / (1.0f + expf(-acc[0]));
        hidden[j] = h;
        delta[j] = h * (1.0f - h) * (target[j] - h);
    }
}

// w[i][j] += eta * delta[j] * x[i] + momentum * dw_old[i][j]; dw_old keeps the step.
__global__ void adjust_weights(float *w, float *dw_old, const float *x, const float *delta,
                               int in) {
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (size_t)in * HID) return;
    int i = (int)(k / HID), j = (int)(k % HID);
    float step = ETA * delta[j] * x[i] + MOMENTUM * dw_old[k];
    w[k] += step;
    dw_old[k] = step;
}

int main(int argc, char **argv) {
    double t0 = gr_now_ms();
    int in = (int)gr_arg(argc, argv, 1, 1048576);
    size_t nw = (size_t)in * HID;
    int nblocks = (in + SLAB - 1) / SLAB;
    float *h_x = (float *)malloc(in * sizeof(float));
    float *h_w = (float *)malloc(nw * sizeof(float)), *h_dw = (float *)malloc(nw * sizeof(float));
    float *h_wout = (float *)malloc(nw * sizeof(float));
    float h_target[HID], h_hidden[HID];
    GrRng rng(7);
    for (int i = 0; i < in; i++) h_x[i] = rng.uniform();
    // Small weights so the hidden sums stay in the sigmoid's responsive range.
    float scale = 4.0f / in;
    for (size_t k = 0; k < nw; k++) {
        h_w[k] = rng.range(-1.0f, 1.0f) * scale;
        h_dw[k] = rng.range(-1.0f, 1.0f) * 0.01f;
    }
    for (int j = 0; j < HID; j++) h_target[j] = rng.uniform();

    float *x, *w, *dw, *partial, *target, *hidden, *delta;
    CK(cudaMalloc(&x, in * sizeof(float)));
    CK(cudaMalloc(&w, nw * sizeof(float)));
    CK(cudaMalloc(&dw, nw * sizeof(float)));
    CK(cudaMalloc(&partial, (size_t)nblocks * HID * sizeof(float)));
    CK(cudaMalloc(&target, HID * sizeof(float)));
    CK(cudaMalloc(&hidden, HID * sizeof(float)));
    CK(cudaMalloc(&delta, HID * sizeof(float)));
    CK(cudaMemcpy(x, h_x, in * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(w, h_w, nw * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dw, h_dw, nw * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(target, h_target, HID * sizeof(float), cudaMemcpyHostToDevice));

    gr_load_kernels(layer_forward, hidden_sum, adjust_weights);
    GrKernelTimer timer;
    timer.begin();
    layer_forward<<<nblocks, dim3(HID, SLAB)>>>(x, w, partial, in);
    timer.launched();
    hidden_sum<<<HID, 256>>>(partial, nblocks, target, hidden, delta);
    timer.launched();
    adjust_weights<<<(unsigned)((nw + 255) / 256), 256>>>(w, dw, x, delta, in);
    timer.launched();
    timer.end();
    CK(cudaMemcpy(h_hidden, hidden, HID * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h_wout, w, nw * sizeof(float), cudaMemcpyDeviceToHost));

    // Reference: the forward pass in full (double), the adjustment on a sample of weights.
    bool ok = true;
    double want_delta[HID];
    for (int j = 0; j < HID; j++) {
        double s = 0.0;
        for (int i = 0; i < in; i++) s += (double)h_x[i] * h_w[(size_t)i * HID + j];
        double h = 1.0 / (1.0 + exp(-s));
        want_delta[j] = h * (1.0 - h) * (h_target[j] - h);
        if (!gr_close(h_hidden[j], h, 1e-4, 1e-3)) {
            fprintf(stderr, "hidden[%d] = %g, want %g\n", j, h_hidden[j], h);
            ok = false;
        }
    }
    size_t stride = nw > 200000 ? nw / 200000 : 1;
    for (size_t k = 0; k < nw && ok; k += stride) {
        int i = (int)(k / HID), j = (int)(k % HID);
        double want = h_w[k] + ETA * want_delta[j] * h_x[i] + MOMENTUM * h_dw[k];
        if (!gr_close(h_wout[k], want, 1e-3, 1e-4)) {
            fprintf(stderr, "w[%d][%d] = %g, want %g\n", i, j, h_wout[k], want);
            ok = false;
        }
    }
    CK(cudaFree(x));
    CK(cudaFree(w));
    CK(cudaFree(dw));
    CK(cudaFree(partial));
    CK(cudaFree(target));
    CK(cudaFree(hidden));
    CK(cudaFree(delta));
    free(h_x);
    free(h_w);
    free(h_dw);
    free(h_wout);
    return gr_finish("backprop", (long long)nw, ok, timer, t0);
}
