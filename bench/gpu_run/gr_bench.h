// gr_bench.h — what every program of bench/gpu_run shares: argument parsing, a deterministic
// random source, a CUDA error check, the kernel-time accumulator and the final report lines
// (`check=ok|FAILED` and `GR_TIMES kernel_ms=... total_ms=... launches=N`).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>

// A failed CUDA call ends the program with the call's place and CUDA's message.
static inline void gr_check(cudaError_t err, const char *file, int line) {
    if (err != cudaSuccess) {
        fprintf(stderr, "%s:%d: %s\n", file, line, cudaGetErrorString(err));
        exit(2);
    }
}
#define CK(call) gr_check((call), __FILE__, __LINE__)

// Milliseconds on the monotonic clock.
static inline double gr_now_ms() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Positional argument i (1-based) as an integer, or def when absent; a bad one ends the program.
static inline long gr_arg(int argc, char **argv, int i, long def) {
    if (argc <= i) return def;
    char *end;
    long v = strtol(argv[i], &end, 10);
    if (*end != '\0' || v <= 0) {
        fprintf(stderr, "%s: argument %d must be a positive integer, got '%s'\n", argv[0], i,
                argv[i]);
        exit(2);
    }
    return v;
}

// SplitMix64: the same inputs on every run and machine.
struct GrRng {
    uint64_t s;
    explicit GrRng(uint64_t seed) : s(seed) {}
    uint64_t next() {
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    float uniform() { return (next() >> 40) * (1.0f / 16777216.0f); } // [0, 1)
    float range(float lo, float hi) { return lo + (hi - lo) * uniform(); }
    uint32_t below(uint32_t n) { return (uint32_t)((next() >> 32) % n); }
};

// Loads the program's kernels before the timed region: with CUDA's lazy module loading a kernel
// is otherwise loaded by its first launch, inside the region (costly next to short kernels).
template <typename... Kernels> static void gr_load_kernels(Kernels... kernels) {
    cudaFuncAttributes attr;
    (CK(cudaFuncGetAttributes(&attr, (const void *)kernels)), ...);
}

// Sums GPU time over kernel regions: begin() and end() bracket launches with no host<->device
// copy between them; end() waits for the region and adds its event time.
struct GrKernelTimer {
    cudaEvent_t a, b;
    double ms = 0.0;
    long launches = 0;
    GrKernelTimer() {
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
    }
    void begin() { CK(cudaEventRecord(a)); }
    void launched() {
        CK(cudaGetLastError());
        launches++;
    }
    void end() {
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float t = 0.0f;
        CK(cudaEventElapsedTime(&t, a, b));
        ms += t;
    }
};

// |got - want| within rel * max(|want|, floor).
static inline bool gr_close(double got, double want, double rel, double floor) {
    double scale = fabs(want) > floor ? fabs(want) : floor;
    return fabs(got - want) <= rel * scale && !std::isnan(got);
}

// The two last lines every program prints; returns the exit status (1 when the check failed).
// elements: the problem size as the README counts it (matrix elements for the O(n^2) and
// O(n^3) programs).
static inline int gr_finish(const char *name, long long elements, bool ok, const GrKernelTimer &t,
                            double t0_ms) {
    CK(cudaDeviceSynchronize());
    double total = gr_now_ms() - t0_ms;
    printf("%s: elements=%lld check=%s\n", name, elements, ok ? "ok" : "FAILED");
    printf("GR_TIMES kernel_ms=%.3f total_ms=%.1f launches=%ld\n", t.ms, total, t.launches);
    fflush(stdout);
    return ok ? 0 : 1;
}
