// blackscholes.cu — European call and put prices by the Black-Scholes formula for N options,
// one thread per option in a grid-stride loop, repeated ITERS times (as option books are
// re-priced). Race-free: every thread writes only its own options.
//   blackscholes [N=10000000] [ITERS=8]
#include "gr_bench.h"

#define RISKFREE 0.02f
#define VOLATILITY 0.30f

// Cumulative normal distribution, polynomial approximation (Abramowitz-Stegun 26.2.17).
__host__ __device__ inline float cnd(float d) {
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f,
                a5 = 1.330274429f, rsqrt2pi = 0.39894228040143267794f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))));
    float c = rsqrt2pi * expf(-0.5f * d * d) * poly;
    return d > 0 ? 1.0f - c : c;
}

__host__ __device__ inline void price(float s, float x, float t, float r, float v, float *call,
                                      float *put) {
    float sqrt_t = sqrtf(t);
    float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
    float d2 = d1 - v * sqrt_t;
    float disc = x * expf(-r * t);
    *call = s * cnd(d1) - disc * cnd(d2);
    *put = disc * (1.0f - cnd(d2)) - s * (1.0f - cnd(d1));
}

__global__ void black_scholes(float *call, float *put, const float *spot, const float *strike,
                              const float *years, int n, float r, float v) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float c, p;
        price(spot[i], strike[i], years[i], r, v, &c, &p);
        call[i] = c;
        put[i] = p;
    }
}

int main(int argc, char **argv) {
    double t0 = gr_now_ms();
    int n = (int)gr_arg(argc, argv, 1, 10000000);
    int iters = (int)gr_arg(argc, argv, 2, 8);
    size_t bytes = (size_t)n * sizeof(float);
    float *h_spot = (float *)malloc(bytes), *h_strike = (float *)malloc(bytes),
          *h_years = (float *)malloc(bytes), *h_call = (float *)malloc(bytes),
          *h_put = (float *)malloc(bytes);
    GrRng rng(42);
    for (int i = 0; i < n; i++) {
        h_spot[i] = rng.range(5.0f, 30.0f);
        h_strike[i] = rng.range(1.0f, 100.0f);
        h_years[i] = rng.range(0.25f, 10.0f);
    }
    float *spot, *strike, *years, *call, *put;
    CK(cudaMalloc(&spot, bytes));
    CK(cudaMalloc(&strike, bytes));
    CK(cudaMalloc(&years, bytes));
    CK(cudaMalloc(&call, bytes));
    CK(cudaMalloc(&put, bytes));
    CK(cudaMemcpy(spot, h_spot, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(strike, h_strike, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(years, h_years, bytes, cudaMemcpyHostToDevice));

    gr_load_kernels(black_scholes);
    GrKernelTimer timer;
    int threads = 256, blocks = (n + threads - 1) / threads;
    if (blocks > 480 * 8) blocks = 480 * 8; // grid-stride beyond a few waves
    timer.begin();
    for (int it = 0; it < iters; it++) {
        black_scholes<<<blocks, threads>>>(call, put, spot, strike, years, n, RISKFREE,
                                           VOLATILITY);
        timer.launched();
    }
    timer.end();
    CK(cudaMemcpy(h_call, call, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h_put, put, bytes, cudaMemcpyDeviceToHost));

    // Sampled check: every option when few, else a stride that visits ~100000 of them.
    bool ok = true;
    int stride = n > 100000 ? n / 100000 : 1;
    for (int i = 0; i < n && ok; i += stride) {
        float c, p;
        price(h_spot[i], h_strike[i], h_years[i], RISKFREE, VOLATILITY, &c, &p);
        if (!gr_close(h_call[i], c, 1e-3, 1e-2) || !gr_close(h_put[i], p, 1e-3, 1e-2)) {
            fprintf(stderr, "option %d: call %g put %g, want %g %g\n", i, h_call[i], h_put[i], c,
                    p);
            ok = false;
        }
    }
    CK(cudaFree(spot));
    CK(cudaFree(strike));
    CK(cudaFree(years));
    CK(cudaFree(call));
    CK(cudaFree(put));
    free(h_spot);
    free(h_strike);
    free(h_years);
    free(h_call);
    free(h_put);
    return gr_finish("blackscholes", n, ok, timer, t0);
}
