/* bench_sim — how fast the simulator executes, in thread-instructions per second on one core.
 *
 * Three synthetic kernels: convergent arithmetic, convergent memory traffic (global + shared),
 * and divergent control flow. Each runs 5 times with the FSM detector on (the access filter on,
 * then off: gr_launch.access_filter), 3 times with the happens-before detector and 5 times with
 * no detector, in the same process; the medians are printed, with a plain C loop doing the same
 * per-thread work as the baseline (its figure is the simulator's instruction count divided by
 * the C loop's time).
 *
 * Then realistic kernels (a tree reduction, a 2D stencil, a tiled matrix product, a shared-memory
 * histogram, a block scan, a tiled transpose), each with the FSM and with happens-before, the
 * access filter on and off, alternating in one process: the filter's speed-up per detector.
 * Build in Release without sanitizers for meaningful numbers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_clock.h"
#include "exec/backend.h"
#include "exec/sim/sim.h"
#include "jit/compile/compile.h"
#include "jit/ptx/ptx_parse.h"

static const char kernels[] =
    "extern \"C\" __global__ void arith(unsigned *out, int iters) {\n"
    "  unsigned x = threadIdx.x, y = blockIdx.x * 7 + 1;\n"
    "  float f = x * 0.5f;\n"
    "  for (int i = 0; i < iters; i++) {\n"
    "    x = x * 1664525u + 1013904223u; y ^= x >> 7; y += x << 3; f = f * 0.999f + 1.0f;\n"
    "  }\n"
    "  out[blockIdx.x * blockDim.x + threadIdx.x] = x + y + (unsigned)f;\n"
    "}\n"
    "extern \"C\" __global__ void memory(const float *in, float *out, int n, int iters) {\n"
    "  __shared__ float s[256];\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  float acc = 0.0f;\n"
    "  for (int k = 0; k < iters; k++) {\n"
    "    float v = in[(i + k * 64) % n];\n"
    "    s[threadIdx.x] = v;\n"
    "    acc += s[threadIdx.x];\n"
    "    out[i] = acc;\n"
    "  }\n"
    "}\n"
    "extern \"C\" __global__ void divergent(unsigned *out, int iters) {\n"
    "  unsigned x = threadIdx.x * 2654435761u + 1;\n"
    "  for (int i = 0; i < iters; i++) {\n"
    "    if (x & 1) { for (unsigned j = 0; j < (x & 7); j++) x = x * 5 + j; }\n"
    "    else { for (unsigned j = 0; j < ((x >> 3) & 3); j++) x ^= x >> 3; x += 7; }\n"
    "  }\n"
    "  out[blockIdx.x * blockDim.x + threadIdx.x] = x;\n"
    "}\n";

enum { BLOCKS = 8, THREADS = 256, N = BLOCKS * THREADS, REPS = 5, REPS_HB = 3 };

/* Realistic kernels: what the access filter (jit/analysis/filter.h) is for. */
static const char realistic[] =
    "extern \"C\" __global__ void reduce_sum(const float *in, float *partial, int n) {\n"
    "  __shared__ float buf[256];\n"
    "  unsigned t = threadIdx.x;\n"
    "  float sum = 0.0f;\n"
    "  for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) sum += in[i];\n"
    "  buf[t] = sum;\n"
    "  __syncthreads();\n"
    "  for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {\n"
    "    if (t < half) buf[t] += buf[t + half];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (t == 0) partial[blockIdx.x] = buf[0];\n"
    "}\n"
    "extern \"C\" __global__ void stencil_2d(const float *src, float *dst, int width, int height) {\n"
    "  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  if (x < 1 || y < 1 || x >= width - 1 || y >= height - 1) return;\n"
    "  int c = y * width + x;\n"
    "  dst[c] = 0.5f * src[c] + 0.125f * (src[c - 1] + src[c + 1] + src[c - width] + src[c + width]);\n"
    "}\n"
    "#define TILE 16\n"
    "extern \"C\" __global__ void matmul_tiled(const float *a, const float *b, float *c, int n) {\n"
    "  __shared__ float ta[TILE][TILE + 1], tb[TILE][TILE];\n"
    "  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;\n"
    "  float acc = 0.0f;\n"
    "  for (int k0 = 0; k0 < n; k0 += TILE) {\n"
    "    ta[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];\n"
    "    tb[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];\n"
    "    __syncthreads();\n"
    "    for (int k = 0; k < TILE; k++) acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  c[row * n + col] = acc;\n"
    "}\n"
    "extern \"C\" __global__ void histogram_shared(const unsigned *keys, unsigned *counts, int n) {\n"
    "  __shared__ unsigned bins[64];\n"
    "  if (threadIdx.x < 64) bins[threadIdx.x] = 0;\n"
    "  __syncthreads();\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "    atomicAdd(&bins[keys[i] % 64], 1u);\n"
    "  __syncthreads();\n"
    "  if (threadIdx.x < 64) atomicAdd(&counts[threadIdx.x], bins[threadIdx.x]);\n"
    "}\n"
    "#define SCAN_BLOCK 256\n"
    "extern \"C\" __global__ void scan_block(const int *in, int *out) {\n"
    "  __shared__ int buf[2][SCAN_BLOCK];\n"
    "  int t = threadIdx.x, base = blockIdx.x * SCAN_BLOCK, cur = 0;\n"
    "  buf[cur][t] = in[base + t];\n"
    "  __syncthreads();\n"
    "  for (int step = 1; step < SCAN_BLOCK; step *= 2) {\n"
    "    int v = buf[cur][t];\n"
    "    if (t >= step) v += buf[cur][t - step];\n"
    "    buf[1 - cur][t] = v;\n"
    "    cur = 1 - cur;\n"
    "    __syncthreads();\n"
    "  }\n"
    "  out[base + t] = buf[cur][t];\n"
    "}\n"
    "extern \"C\" __global__ void transpose_tiled(const float *in, float *out, int n) {\n"
    "  __shared__ float tile[32][33];\n"
    "  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;\n"
    "  for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];\n"
    "  __syncthreads();\n"
    "  x = blockIdx.y * 32 + threadIdx.x;\n"
    "  y = blockIdx.x * 32 + threadIdx.y;\n"
    "  for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];\n"
    "}\n";

/* One realistic launch: up to three buffers of `words` 4-byte words (the first filled with small
 * values), then integer arguments. */
typedef struct realistic_case {
    const char *kernel;
    gr_dim3 grid, block;
    uint32_t words[3]; /* 0: no such buffer */
    int32_t ints[2];
    int nints;
} realistic_case;

/* Sizes: 8K to 64K threads, so that the happens-before runs (whose cost grows with the number of
 * threads) stay within seconds. */
enum { REAL_N = 1 << 18, REAL_SIDE = 256, REAL_MM = 96, REAL_T = 256 };
static const realistic_case realistic_cases[] = {
    {"reduce_sum", {32, 1, 1}, {REAL_T, 1, 1}, {REAL_N, 32, 0}, {REAL_N, 0}, 1},
    {"stencil_2d", {REAL_SIDE / 16, REAL_SIDE / 16, 1}, {16, 16, 1},
     {REAL_SIDE * REAL_SIDE, REAL_SIDE * REAL_SIDE, 0}, {REAL_SIDE, REAL_SIDE}, 2},
    {"matmul_tiled", {REAL_MM / 16, REAL_MM / 16, 1}, {16, 16, 1},
     {REAL_MM * REAL_MM, REAL_MM * REAL_MM, REAL_MM * REAL_MM}, {REAL_MM, 0}, 1},
    {"histogram_shared", {32, 1, 1}, {REAL_T, 1, 1}, {REAL_N, 64, 0}, {REAL_N, 0}, 1},
    {"scan_block", {64, 1, 1}, {REAL_T, 1, 1}, {64 * REAL_T, 64 * REAL_T, 0}, {0, 0}, 0},
    {"transpose_tiled", {REAL_SIDE / 32, REAL_SIDE / 32, 1}, {32, 8, 1},
     {REAL_SIDE * REAL_SIDE, REAL_SIDE * REAL_SIDE, 0}, {REAL_SIDE, 0}, 1},
};

/* Thread-instructions per second of one launch (0 when it failed), in millions. */
static double run_realistic(gr_backend *be, const realistic_case *rc, const uint64_t *bufs,
                            gr_detector_kind det, gr_access_filter_mode filter, uint64_t *insns) {
    gr_launch_arg args[5];
    int na = 0;
    for (int b = 0; b < 3; b++)
        if (rc->words[b]) args[na++] = (gr_launch_arg){&bufs[b], 8};
    for (int i = 0; i < rc->nints; i++) args[na++] = (gr_launch_arg){&rc->ints[i], 4};
    gr_launch L;
    memset(&L, 0, sizeof L);
    L.kernel = rc->kernel;
    L.grid = rc->grid;
    L.block = rc->block;
    L.args = args;
    L.nargs = na;
    L.detect = true;
    L.detector = det;
    L.confirm = GR_CONFIRM_OFF;
    L.access_filter = filter;
    L.step_budget = 4000000000ull;
    gr_launch_result res;
    gr_error err = GR_ERROR_INIT;
    double t0 = gr_bench_now();
    if (!gr_backend_launch(be, &L, &res, &err)) {
        gr_error_print(&err, stderr);
        gr_error_clear(&err);
        return 0;
    }
    double dt = gr_bench_now() - t0;
    if (res.status != GR_EXEC_OK || res.nfindings)
        fprintf(stderr, "warning: %s: status %s, %d findings\n", rc->kernel,
                gr_exec_status_name(res.status), res.nfindings);
    *insns = res.thread_instructions;
    double rate = (double)res.thread_instructions / dt / 1e6;
    gr_launch_result_free(&res);
    return rate;
}

/* The realistic kernels' table: FSM and HB, the filter on and off (alternating runs). */
static int bench_realistic(int argc, char **argv) {
    gr_error err = GR_ERROR_INIT;
    gr_compile_result cr;
    memset(&cr, 0, sizeof cr);
    ptx_module *m = NULL;
    gr_backend *be = NULL;
    if (!gr_compile_source(realistic, "bench_sim_real.cu", NULL, &cr, &err) ||
        !ptx_parse(cr.ptx, cr.ptx_len, "bench_sim_real.ptx", &m, &err) ||
        !(be = gr_sim_backend_new(&err)) || !gr_backend_load(be, m, &err)) {
        gr_error_print(&err, stderr);
        return 1;
    }
    printf("\nrealistic kernels: M thread-instructions/s, access filter on / off, median of %d (HB: %d)\n",
           REPS, REPS_HB);
    printf("%-18s %8s %11s %11s %8s %11s %11s %8s\n", "kernel", "M insns", "FSM on", "FSM off",
           "speedup", "HB on", "HB off", "speedup");
    double log_fsm = 0, log_hb = 0;
    int counted = 0;
    for (size_t c = 0; c < sizeof realistic_cases / sizeof realistic_cases[0]; c++) {
        const realistic_case *rc = &realistic_cases[c];
        bool chosen = argc < 2;
        for (int i = 1; i < argc; i++) chosen = chosen || strcmp(argv[i], rc->kernel) == 0;
        if (!chosen) continue;
        uint64_t bufs[3] = {0, 0, 0};
        for (int b = 0; b < 3; b++) {
            if (!rc->words[b]) continue;
            uint32_t *host = malloc((size_t)rc->words[b] * 4);
            for (uint32_t i = 0; host && i < rc->words[b]; i++) host[i] = (i * 2654435761u) >> 26;
            if (!host || !gr_backend_alloc(be, (size_t)rc->words[b] * 4, &bufs[b], &err) ||
                !gr_backend_write(be, bufs[b], host, (size_t)rc->words[b] * 4, &err)) {
                gr_error_print(&err, stderr);
                free(host);
                return 1;
            }
            free(host);
        }
        /* per detector: one warm-up run, then the filter on and off alternating */
        double rate[4][REPS];
        uint64_t insns = 0;
        for (int d = 0; d < 2; d++) {
            gr_detector_kind det = d ? GR_DETECTOR_HB : GR_DETECTOR_FSM;
            run_realistic(be, rc, bufs, det, GR_ACCESS_FILTER_ON, &insns);
            for (int r = 0; r < (d ? REPS_HB : REPS); r++)
                for (int f = 0; f < 2; f++)
                    rate[2 * d + f][r] = run_realistic(be, rc, bufs, det,
                                                       f ? GR_ACCESS_FILTER_OFF : GR_ACCESS_FILTER_ON,
                                                       &insns);
        }
        double fsm_on = gr_bench_median(rate[0], REPS), fsm_off = gr_bench_median(rate[1], REPS);
        double hb_on = gr_bench_median(rate[2], REPS_HB), hb_off = gr_bench_median(rate[3], REPS_HB);
        printf("%-18s %8.1f %11.1f %11.1f %7.2fx %11.1f %11.1f %7.2fx\n", rc->kernel,
               (double)insns / 1e6, fsm_on, fsm_off, fsm_on / fsm_off, hb_on, hb_off, hb_on / hb_off);
        if (fsm_off > 0 && hb_off > 0) {
            log_fsm += log(fsm_on / fsm_off);
            log_hb += log(hb_on / hb_off);
            counted++;
        }
    }
    if (counted)
        printf("%-18s %8s %11s %11s %7.2fx %11s %11s %7.2fx\n", "geometric mean", "", "", "",
               exp(log_fsm / counted), "", "", exp(log_hb / counted));
    gr_backend_free(be);
    ptx_module_free(m);
    gr_compile_result_free(&cr);
    return 0;
}


/* ---- native baselines: the same per-thread work as the kernels ------------------------- */

static volatile unsigned sink;

static void native_arith(int iters) {
    for (int b = 0; b < BLOCKS; b++)
        for (int t = 0; t < THREADS; t++) {
            unsigned x = (unsigned)t, y = (unsigned)b * 7 + 1;
            float f = (float)x * 0.5f;
            for (int i = 0; i < iters; i++) {
                x = x * 1664525u + 1013904223u;
                y ^= x >> 7;
                y += x << 3;
                f = f * 0.999f + 1.0f;
            }
            sink = x + y + (unsigned)f;
        }
}

static void native_memory(const float *in, float *out, int n, int iters) {
    float s[256];
    for (int b = 0; b < BLOCKS; b++)
        for (int t = 0; t < THREADS; t++) {
            int i = b * THREADS + t;
            float acc = 0.0f;
            for (int k = 0; k < iters; k++) {
                float v = in[(i + k * 64) % n];
                s[t] = v;
                acc += s[t];
                out[i] = acc;
            }
        }
    sink = (unsigned)out[0];
}

static void native_divergent(int iters) {
    for (int b = 0; b < BLOCKS; b++)
        for (int t = 0; t < THREADS; t++) {
            unsigned x = (unsigned)t * 2654435761u + 1;
            for (int i = 0; i < iters; i++) {
                if (x & 1) {
                    for (unsigned j = 0; j < (x & 7); j++) x = x * 5 + j;
                } else {
                    for (unsigned j = 0; j < ((x >> 3) & 3); j++) x ^= x >> 3;
                    x += 7;
                }
            }
            sink = x;
        }
}

typedef struct bench_case {
    const char *name;
    const char *kernel;
    int iters;
    double target; /* M thread-instructions per second with the detector on */
} bench_case;

/* With arguments, only the named kernels (arith, memory, divergent) and detector settings
 * (fsm, hb, off) run, for profiling; the other columns print 0. Naming realistic kernels (or
 * `realistic`) runs those alone. */
static bool selected(int argc, char **argv, const char *a, const char *b, const char *c,
                     const char *name) {
    bool any = false;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], a) || !strcmp(argv[i], b) || !strcmp(argv[i], c)) {
            any = true;
            if (!strcmp(argv[i], name)) return true;
        }
    return !any;
}

static bool names_realistic(const char *a) {
    if (strcmp(a, "realistic") == 0) return true;
    for (size_t c = 0; c < sizeof realistic_cases / sizeof realistic_cases[0]; c++)
        if (strcmp(a, realistic_cases[c].kernel) == 0) return true;
    return false;
}

int main(int argc, char **argv) {
    bool realistic_only = argc > 1;
    for (int i = 1; i < argc; i++) realistic_only = realistic_only && names_realistic(argv[i]);
    if (realistic_only) {
        bool all = true;
        for (int i = 1; i < argc; i++) all = all && strcmp(argv[i], "realistic") == 0;
        return bench_realistic(all ? 1 : argc, argv);
    }
    gr_error err = GR_ERROR_INIT;
    gr_compile_result cr;
    memset(&cr, 0, sizeof cr);
    if (!gr_compile_source(kernels, "bench_sim.cu", NULL, &cr, &err)) {
        gr_error_print(&err, stderr);
        return 1;
    }
    ptx_module *m = NULL;
    if (!ptx_parse(cr.ptx, cr.ptx_len, "bench_sim.ptx", &m, &err)) {
        gr_error_print(&err, stderr);
        return 1;
    }
    gr_backend *be = gr_sim_backend_new(&err);
    if (!be || !gr_backend_load(be, m, &err)) {
        gr_error_print(&err, stderr);
        return 1;
    }
    float *in = malloc(N * sizeof(float)), *out = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++) in[i] = (float)i * 0.25f;
    uint64_t din, dout;
    if (!gr_backend_alloc(be, N * sizeof(float), &din, &err) ||
        !gr_backend_alloc(be, N * sizeof(float), &dout, &err) ||
        !gr_backend_write(be, din, in, N * sizeof(float), &err)) {
        gr_error_print(&err, stderr);
        return 1;
    }
    const bench_case cases[] = {
        {"convergent arithmetic", "arith", 2000, 300},
        {"convergent memory (global+shared)", "memory", 400, 100},
        {"divergent control flow", "divergent", 300, 20},
    };
    printf("bench_sim: %d blocks x %d threads, median of %d runs (HB: %d), one core\n", BLOCKS,
           THREADS, REPS, REPS_HB);
    printf("M thread-instructions/s; 'unfilt.': the access filter off; native C: equivalent M/s\n");
    printf("%-34s %9s %9s %9s %9s %9s %9s %9s %7s\n", "workload", "FSM", "FSM", "HB", "HB",
           "no", "native", "slowdown", "target");
    printf("%-34s %9s %9s %9s %9s %9s %9s %9s %7s\n", "", "", "unfilt.", "", "unfilt.",
           "detector", "C", "(FSM)", "(M/s)");
    int n = N;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const bench_case *bc = &cases[c];
        if (!selected(argc, argv, "arith", "memory", "divergent", bc->kernel)) continue;
        /* det 0: FSM, 1: FSM without the access filter, 2: HB (fewer runs: it is much slower),
         * 3: HB without the filter, 4: no detector. With and without the filter alternate. */
        enum { SETTINGS = 5 };
        double rate[SETTINGS][REPS], native[REPS];
        const int reps[SETTINGS] = {REPS, REPS, REPS_HB, REPS_HB, REPS};
        uint64_t insns = 0;
        static const char *const det_names[SETTINGS] = {"fsm", "fsm", "hb", "hb", "off"};
        memset(rate, 0, sizeof rate);
        for (int r = 0; r < REPS; r++)
            for (int det = 0; det < SETTINGS; det++) {
                if (r >= reps[det] || !selected(argc, argv, "fsm", "hb", "off", det_names[det])) continue;
                gr_launch L;
                memset(&L, 0, sizeof L);
                gr_launch_arg args[4];
                int iters = bc->iters, na = 0;
                if (c == 1) {
                    args[na++] = (gr_launch_arg){&din, 8};
                    args[na++] = (gr_launch_arg){&dout, 8};
                    args[na++] = (gr_launch_arg){&n, 4};
                } else {
                    args[na++] = (gr_launch_arg){&dout, 8};
                }
                args[na++] = (gr_launch_arg){&iters, 4};
                L.kernel = bc->kernel;
                L.grid = (gr_dim3){BLOCKS, 1, 1};
                L.block = (gr_dim3){THREADS, 1, 1};
                L.args = args;
                L.nargs = na;
                L.detect = det < 4;
                L.detector = det == 2 || det == 3 ? GR_DETECTOR_HB : GR_DETECTOR_FSM;
                L.access_filter = det == 1 || det == 3 ? GR_ACCESS_FILTER_OFF : GR_ACCESS_FILTER_ON;
                L.step_budget = 4000000000ull;
                gr_launch_result res;
                double t0 = gr_bench_now();
                if (!gr_backend_launch(be, &L, &res, &err)) {
                    gr_error_print(&err, stderr);
                    return 1;
                }
                double dt = gr_bench_now() - t0;
                if (res.status != GR_EXEC_OK || res.nfindings)
                    fprintf(stderr, "warning: %s: status %s, %d findings\n", bc->kernel,
                            gr_exec_status_name(res.status), res.nfindings);
                insns = res.thread_instructions;
                rate[det][r] = (double)res.thread_instructions / dt / 1e6;
                gr_launch_result_free(&res);
            }
        for (int r = 0; r < REPS; r++) {
            double t0 = gr_bench_now();
            if (c == 0) native_arith(bc->iters);
            else if (c == 1) native_memory(in, out, n, bc->iters);
            else native_divergent(bc->iters);
            native[r] = (double)insns / (gr_bench_now() - t0) / 1e6;
        }
        double on = gr_bench_median(rate[0], REPS), unfiltered = gr_bench_median(rate[1], REPS);
        double hb = gr_bench_median(rate[2], REPS_HB), hb_unfiltered = gr_bench_median(rate[3], REPS_HB);
        double off = gr_bench_median(rate[4], REPS), nat = gr_bench_median(native, REPS);
        printf("%-34s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %8.1fx %7.0f%s\n", bc->name, on, unfiltered,
               hb, hb_unfiltered, off, nat, nat / on, bc->target,
               on >= bc->target ? "" : "  (below target)");
    }
    printf("(%s)\n",
#ifdef __OPTIMIZE__
           "optimized build"
#else
           "UNOPTIMIZED build: figures are not meaningful"
#endif
    );
    free(in);
    free(out);
    gr_backend_free(be);
    ptx_module_free(m);
    gr_compile_result_free(&cr);
    bool any_synthetic_choice = false;
    for (int i = 1; i < argc; i++) any_synthetic_choice = any_synthetic_choice || !names_realistic(argv[i]);
    return any_synthetic_choice ? 0 : bench_realistic(1, argv);
}
