/* bench_sim — how fast the simulator executes, in thread-instructions per second on one core.
 *
 * Three kernels: convergent arithmetic, convergent memory traffic (global + shared), and
 * divergent control flow. Each runs 5 times with the FSM detector on, 3 times with the
 * happens-before detector and 5 times with no detector, in the same process; the medians are
 * printed, with a plain C loop doing the same per-thread work as the baseline (its figure is
 * the simulator's instruction count divided by the C loop's time).
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
 * (fsm, hb, off) run, for profiling; the other columns print 0. */
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

int main(int argc, char **argv) {
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
    printf("%-36s %14s %14s %14s %14s %10s %8s\n", "workload", "M thr-insn/s", "M thr-insn/s",
           "M thr-insn/s", "native C", "slowdown", "target");
    printf("%-36s %14s %14s %14s %14s %10s %8s\n", "", "(FSM on)", "(HB on)", "(no detector)",
           "(equiv. M/s)", "(FSM on)", "(M/s)");
    int n = N;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const bench_case *bc = &cases[c];
        if (!selected(argc, argv, "arith", "memory", "divergent", bc->kernel)) continue;
        /* det 0: FSM, 1: HB (fewer runs: it is much slower), 2: no detector. */
        double rate[3][REPS], native[REPS];
        const int reps[3] = {REPS, REPS_HB, REPS};
        uint64_t insns = 0;
        static const char *const det_names[3] = {"fsm", "hb", "off"};
        memset(rate, 0, sizeof rate);
        for (int det = 0; det < 3; det++)
            for (int r = 0; r < reps[det] && selected(argc, argv, "fsm", "hb", "off", det_names[det]); r++) {
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
                L.detect = det < 2;
                L.detector = det == 1 ? GR_DETECTOR_HB : GR_DETECTOR_FSM;
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
        double on = gr_bench_median(rate[0], REPS), hb = gr_bench_median(rate[1], REPS_HB);
        double off = gr_bench_median(rate[2], REPS), nat = gr_bench_median(native, REPS);
        printf("%-36s %14.1f %14.1f %14.1f %14.1f %9.1fx %8.0f%s\n", bc->name, on, hb, off, nat,
               nat / on, bc->target, on >= bc->target ? "" : "  (below target)");
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
    return 0;
}
