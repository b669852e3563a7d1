/* bench_hb_memory — peak memory and time of the happens-before detector on a big racy launch.
 *
 * The launch: hb_memory_kernel.cu (a block-wide shared-memory reduction missing its barriers),
 * GRID blocks x BLOCK threads (default 1024 x 256) on the simulator. Two tables, medians of RUNS
 * runs (default 3):
 *
 *   1. `gpurace check` in a child process per run, for each detector mode: fsm (the FSM alone:
 *      the baseline), auto (the FSM, then happens-before confirming its race: what fuzz and
 *      check do by default) and hb (happens-before alone). Seconds of wall time and the child's
 *      peak resident memory (wait4's ru_maxrss), and the exit status (1: the race was
 *      reported). `--gpurace PATH` measures another build of the command (say, an older one,
 *      for a before/after comparison: it takes the same arguments).
 *   2. The same modes through the backend API in this process: seconds, and the peak of the
 *      happens-before detector's own accounting (gr_launch_result.hb_memory_peak), with
 *      whether the confirmation ran.
 *
 * Usage: bench_hb_memory [--gpurace PATH] [--grid N] [--block N] [--runs N] [--limit-mb N]
 *                        [--no-cli] [--no-api]
 * --limit-mb passes --memory-limit to the command (builds that know it) and the API launch.
 * Build with -DCMAKE_BUILD_TYPE=Release; run on an otherwise idle machine. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench_clock.h"
#include "common/file.h"
#include "exec/backend.h"
#include "exec/sim/sim.h"
#include "jit/compile/compile.h"
#include "jit/ptx/ptx_parse.h"

#ifndef GR_BENCH_KERNEL
#define GR_BENCH_KERNEL "bench/detector/hb_memory_kernel.cu"
#endif
#ifndef GR_GPURACE
#define GR_GPURACE "gpurace"
#endif

enum { MAX_RUNS = 15 };

typedef struct settings {
    const char *gpurace;
    unsigned grid, block, runs, limit_mb;
    bool cli, api;
} settings;

static const char *const modes[] = {"fsm", "auto", "hb"};
enum { NMODES = 3 };

/* One `gpurace check` in a child: seconds, peak RSS in MB, exit status (-1: killed). */
static bool run_cli(const settings *s, const char *mode, double *seconds, double *rss_mb,
                    int *status) {
    char grid[32], block[32], limit[32];
    snprintf(grid, sizeof grid, "%u", s->grid);
    snprintf(block, sizeof block, "%u", s->block);
    snprintf(limit, sizeof limit, "%u", s->limit_mb);
    const char *argv[16] = {s->gpurace, "check", GR_BENCH_KERNEL, "--grid", grid, "--block",
                            block, "--backend", "sim", "--detector", mode, "--quiet"};
    int argc = 12;
    if (s->limit_mb) {
        argv[argc++] = "--memory-limit";
        argv[argc++] = limit;
    }
    argv[argc] = NULL;
    double t0 = gr_bench_now();
    pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        execv(s->gpurace, (char *const *)argv);
        _exit(127);
    }
    int ws = 0;
    struct rusage ru;
    if (wait4(pid, &ws, 0, &ru) != pid) return false;
    *seconds = gr_bench_now() - t0;
    *rss_mb = (double)ru.ru_maxrss / 1024.0; /* KB on Linux */
    *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    return *status != 127;
}

static void cli_table(const settings *s) {
    printf("gpurace check (%s), %u blocks x %u threads, median of %u runs, one child process "
           "per run:\n", s->gpurace, s->grid, s->block, s->runs);
    printf("  %-6s %10s %14s %8s %10s %10s\n", "mode", "seconds", "peak RSS (MB)", "exit",
           "x time", "x memory");
    double base_t = 0, base_m = 0;
    for (int m = 0; m < NMODES; m++) {
        double t[MAX_RUNS], r[MAX_RUNS];
        int status = 0;
        for (unsigned i = 0; i < s->runs; i++)
            if (!run_cli(s, modes[m], &t[i], &r[i], &status)) {
                fprintf(stderr, "bench_hb_memory: could not run %s\n", s->gpurace);
                return;
            }
        double mt = gr_bench_median(t, (int)s->runs), mr = gr_bench_median(r, (int)s->runs);
        if (m == 0) {
            base_t = mt;
            base_m = mr;
        }
        printf("  %-6s %10.2f %14.0f %8d %9.1fx %9.1fx%s\n", modes[m], mt, mr, status, mt / base_t,
               mr / base_m, m == 0 ? "  (baseline)" : "");
    }
}

typedef struct api_ctx {
    gr_backend *be;
    uint64_t din, dout;
} api_ctx;

static bool api_open(const settings *s, api_ctx *a, ptx_module **m, gr_compile_result *cr,
                     gr_error *err) {
    size_t len = 0;
    char *src = gr_read_file(GR_BENCH_KERNEL, &len, err);
    if (!src) return false;
    bool ok = gr_compile_source(src, "hb_memory_kernel.cu", NULL, cr, err) &&
              ptx_parse(cr->ptx, cr->ptx_len, "hb_memory_kernel.ptx", m, err);
    free(src);
    if (!ok) return false;
    a->be = gr_sim_backend_new(err);
    if (!a->be || !gr_backend_load(a->be, *m, err)) return false;
    size_t n = (size_t)s->grid * s->block;
    float *in = calloc(n, sizeof *in);
    if (!in) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) in[i] = (float)(i % 7);
    ok = gr_backend_alloc(a->be, n * sizeof *in, &a->din, err) &&
         gr_backend_alloc(a->be, s->grid * sizeof *in, &a->dout, err) &&
         gr_backend_write(a->be, a->din, in, n * sizeof *in, err);
    free(in);
    return ok;
}

static void api_table(const settings *s) {
    gr_error err = GR_ERROR_INIT;
    gr_compile_result cr;
    memset(&cr, 0, sizeof cr);
    ptx_module *m = NULL;
    api_ctx a = {0};
    if (!api_open(s, &a, &m, &cr, &err)) {
        gr_error_print(&err, stderr);
        gr_error_clear(&err);
        gr_backend_free(a.be);
        ptx_module_free(m);
        gr_compile_result_free(&cr);
        return;
    }
    printf("backend API in this process, same launch, median of %u runs:\n", s->runs);
    printf("  %-6s %10s %22s %8s %10s\n", "mode", "seconds", "HB accounting peak (MB)",
           "races", "confirmed");
    for (int mode = 0; mode < NMODES; mode++) {
        double t[MAX_RUNS], peak[MAX_RUNS];
        int races = 0;
        const char *confirmed = "-";
        for (unsigned i = 0; i < s->runs; i++) {
            gr_launch_arg args[2] = {{&a.din, 8}, {&a.dout, 8}};
            gr_launch L;
            memset(&L, 0, sizeof L);
            L.kernel = "block_sum_race";
            L.grid = (gr_dim3){s->grid, 1, 1};
            L.block = (gr_dim3){s->block, 1, 1};
            L.args = args;
            L.nargs = 2;
            L.detect = true;
            L.detector = mode == 2 ? GR_DETECTOR_HB : GR_DETECTOR_FSM;
            L.confirm = mode == 0 ? GR_CONFIRM_OFF : GR_CONFIRM_AUTO;
            L.memory_limit_mb = s->limit_mb;
            gr_launch_result res;
            double t0 = gr_bench_now();
            if (!gr_backend_launch(a.be, &L, &res, &err)) {
                printf("  %-6s failed: %s\n", modes[mode], err.message ? err.message : "?");
                gr_error_clear(&err);
                goto next;
            }
            t[i] = gr_bench_now() - t0;
            peak[i] = (double)res.hb_memory_peak / (1 << 20);
            races = 0;
            for (int f = 0; f < res.nfindings; f++) races += res.findings[f].cls == GR_FINDING_RACE;
            if (mode == 1)
                confirmed = res.confirmed_by_hb ? "yes" : res.confirm_skipped ? "skipped" : "no";
            gr_launch_result_free(&res);
        }
        printf("  %-6s %10.2f %22.1f %8d %10s%s\n", modes[mode], gr_bench_median(t, (int)s->runs),
               gr_bench_median(peak, (int)s->runs), races, confirmed,
               mode == 0 ? "  (baseline)" : "");
    next:;
    }
    gr_backend_free(a.be);
    ptx_module_free(m);
    gr_compile_result_free(&cr);
}

static unsigned number(const char *flag, const char *v) {
    char *end;
    unsigned long x = v ? strtoul(v, &end, 10) : 0;
    if (!v || *end || x == 0 || x > 1u << 24) {
        fprintf(stderr, "bench_hb_memory: %s needs a positive number\n", flag);
        exit(2);
    }
    return (unsigned)x;
}

int main(int argc, char **argv) {
    settings s = {GR_GPURACE, 1024, 256, 3, 0, true, true};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--gpurace") && v) s.gpurace = argv[++i];
        else if (!strcmp(a, "--grid")) s.grid = number(a, v), i++;
        else if (!strcmp(a, "--block")) s.block = number(a, v), i++;
        else if (!strcmp(a, "--runs")) s.runs = number(a, v), i++;
        else if (!strcmp(a, "--limit-mb")) s.limit_mb = number(a, v), i++;
        else if (!strcmp(a, "--no-cli")) s.cli = false;
        else if (!strcmp(a, "--no-api")) s.api = false;
        else {
            fprintf(stderr, "usage: bench_hb_memory [--gpurace PATH] [--grid N] [--block N] "
                            "[--runs N] [--limit-mb N] [--no-cli] [--no-api]\n");
            return 2;
        }
    }
    if (s.runs > MAX_RUNS) s.runs = MAX_RUNS;
    if (s.block > 1024) s.block = 1024;
    if (s.cli) cli_table(&s);
    if (s.api) api_table(&s);
    printf("(%s)\n",
#ifdef __OPTIMIZE__
           "optimized build"
#else
           "UNOPTIMIZED build: figures are not meaningful"
#endif
    );
    return 0;
}
