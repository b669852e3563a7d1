/* gpu_check — known-verdict kernels on the GPU backend, each compared with the simulator, plus
 * recovery after a trapped context and the launch rate of a small kernel (the search's
 * executions per second). `gpu_check --rate` measures only the rate.
 * Prints one line per kernel and "gpu_check: N/M agree"; exit 0 when all agree, 1 otherwise,
 * 2 without a usable GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec/gpu/gpu.h"
#include "exec/sim/sim.h"
#include "jit/compile/compile.h"
#include "jit/ptx/ptx_parse.h"

typedef struct check_case {
    const char *name;
    const char *source;
    uint32_t grid, block, words; /* one int buffer of `words` elements */
    const char *expect;          /* "race", "no-race", "hang", "out-of-bounds" */
} check_case;

static const check_case cases[] = {
    {"shared_no_barrier", "extern \"C\" __global__ void k(int *out) {\n"
     "  __shared__ int s[256]; s[threadIdx.x] = threadIdx.x;\n"
     "  out[threadIdx.x] = s[(threadIdx.x + 32) % 256]; }\n", 1, 256, 256, "race"},
    {"shared_barrier", "extern \"C\" __global__ void k(int *out) {\n"
     "  __shared__ int s[256]; s[threadIdx.x] = threadIdx.x; __syncthreads();\n"
     "  out[threadIdx.x] = s[(threadIdx.x + 32) % 256]; }\n", 1, 256, 256, "no-race"},
    {"global_cross_block", "extern \"C\" __global__ void k(int *out) {\n"
     "  out[threadIdx.x] += blockIdx.x; }\n", 4, 64, 64, "race"},
    {"global_atomic", "extern \"C\" __global__ void k(int *out) {\n"
     "  atomicAdd(&out[threadIdx.x], blockIdx.x); }\n", 4, 64, 64, "no-race"},
    {"same_flag_store", "extern \"C\" __global__ void k(int *out) {\n"
     "  if (threadIdx.x % 3 == 0) out[0] = 1; }\n", 1, 64, 1, "race"},
    {"warp_no_sync", "extern \"C\" __global__ void k(int *out) {\n"
     "  __shared__ int s[32]; s[threadIdx.x] = 1;\n"
     "  out[threadIdx.x] = s[31 - threadIdx.x]; }\n", 1, 32, 32, "race"},
    {"warp_syncwarp", "extern \"C\" __global__ void k(int *out) {\n"
     "  __shared__ int s[32]; s[threadIdx.x] = 1; __syncwarp();\n"
     "  out[threadIdx.x] = s[31 - threadIdx.x]; }\n", 1, 32, 32, "no-race"},
    {"disjoint_bytes", "extern \"C\" __global__ void k(int *out) {\n"
     "  ((unsigned char *)out)[threadIdx.x] = 7; }\n", 1, 64, 16, "no-race"},
    {"out_of_bounds", "extern \"C\" __global__ void k(int *out) {\n"
     "  out[threadIdx.x + 1] = 1; }\n", 1, 64, 64, "out-of-bounds"},
    /* 1024 threads need a kernel of at most 64 registers (the register cap, module.c) */
    {"block_1024_barrier", "extern \"C\" __global__ void k(int *out) {\n"
     "  __shared__ int s[1024]; s[threadIdx.x] = threadIdx.x; __syncthreads();\n"
     "  out[threadIdx.x] = s[(threadIdx.x + 32) % 1024]; }\n", 1, 1024, 1024, "no-race"},
    {"block_1024_no_barrier", "extern \"C\" __global__ void k(int *out) {\n"
     "  __shared__ int s[1024]; s[threadIdx.x] = threadIdx.x;\n"
     "  out[threadIdx.x] = s[(threadIdx.x + 32) % 1024]; }\n", 1, 1024, 1024, "race"},
    {"spin_forever", "extern \"C\" __global__ void k(int *out) {\n"
     "  while (((volatile int *)out)[0] == 0) { } }\n", 1, 32, 1, "hang"},
};

static ptx_module *compile(const char *src, gr_error *err) {
    gr_compile_options opt = {.compiler = GR_COMPILER_NVRTC};
    gr_compile_result res = {0};
    if (!gr_compile_source(src, "check.cu", &opt, &res, err)) return NULL;
    ptx_module *m = NULL;
    bool ok = ptx_parse(res.ptx, res.ptx_len, "check.cu", &m, err);
    gr_compile_result_free(&res);
    return ok ? m : NULL;
}

/* Runs one case; writes the verdict ("race", "no-race", status name) into v. */
static bool verdict(gr_backend *be, const ptx_module *m, const check_case *c, char *v, size_t n,
                    gr_error *err) {
    uint64_t buf;
    if (!gr_backend_load(be, m, err) || !gr_backend_alloc(be, c->words * 4u, &buf, err)) return false;
    gr_launch_arg arg = {&buf, 8};
    gr_launch l;
    memset(&l, 0, sizeof l);
    l.grid = (gr_dim3){c->grid, 1, 1};
    l.block = (gr_dim3){c->block, 1, 1};
    l.args = &arg;
    l.nargs = 1;
    l.detect = true;
    l.step_budget = 2000000;
    gr_launch_result r;
    if (!gr_backend_launch(be, &l, &r, err)) return false;
    bool race = false;
    for (int i = 0; i < r.nfindings; i++) race |= r.findings[i].cls == GR_FINDING_RACE;
    if (r.status != GR_EXEC_OK) snprintf(v, n, "%s", gr_exec_status_name(r.status));
    else snprintf(v, n, "%s", race ? "race" : "no-race");
    if (r.nfindings) fprintf(stderr, "  %s: %s\n", c->name, r.findings[0].message);
    gr_launch_result_free(&r);
    return true;
}

/* The search's inner loop on one small kernel (1 block x 256 threads, detection and coverage
 * on): write the input, launch, read the findings and the output, for 2 seconds. */
static bool launch_rate(gr_error *err) {
    ptx_module *m = compile(cases[1].source, err);
    gr_backend *g = m ? gr_gpu_backend_new(NULL, err) : NULL;
    uint64_t buf;
    bool ok = g && gr_backend_load(g, m, err) && gr_backend_alloc(g, 1024, &buf, err);
    int runs = 0;
    double s = 0;
    if (ok) {
        gr_launch_arg arg = {&buf, 8};
        gr_launch l;
        memset(&l, 0, sizeof l);
        l.grid = (gr_dim3){1, 1, 1};
        l.block = (gr_dim3){256, 1, 1};
        l.args = &arg;
        l.nargs = 1;
        l.detect = true;
        int input[256], output[256];
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (; ok && s < 2.0; runs++) {
            for (int i = 0; i < 256; i++) input[i] = runs + i;
            gr_launch_result r;
            ok = gr_backend_write(g, buf, input, sizeof input, err) &&
                 gr_backend_launch(g, &l, &r, err);
            if (!ok) break;
            gr_launch_result_free(&r);
            ok = gr_backend_read(g, buf, output, sizeof output, err);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        }
    }
    if (ok)
        printf("launch rate (1 block x 256 threads, write + launch + findings + read): %.0f "
               "executions/s\n", runs / s);
    gr_backend_free(g);
    if (m) ptx_module_free(m);
    return ok;
}

/* The rate measured by a new process (`gpu_check --rate`), as a restarted worker would. */
static bool fresh_process_rate(const char *self) {
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, "--rate", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--rate") == 0) {
        gr_error e = GR_ERROR_INIT;
        bool ok = launch_rate(&e);
        if (!ok) gr_error_print(&e, stderr);
        return ok ? 0 : 1;
    }
    char why[300];
    if (!gr_gpu_available(why, sizeof why)) {
        fprintf(stderr, "gpu_check: no usable GPU: %s\n", why);
        return 2;
    }
    int agree = 0, total = 0;
    gr_error err = GR_ERROR_INIT;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const check_case *c = &cases[i];
        total++;
        ptx_module *m = compile(c->source, &err);
        char vg[64] = "error", vs[64] = "error";
        /* A fresh backend per case: a hang or fault ends its context. */
        gr_backend *g = m ? gr_gpu_backend_new(NULL, &err) : NULL;
        if (g && !verdict(g, m, c, vg, sizeof vg, &err)) {
            gr_error_print(&err, stderr);
            gr_error_clear(&err);
        }
        gr_backend_free(g);
        gr_backend *s = m ? gr_sim_backend_new(&err) : NULL;
        if (s && !verdict(s, m, c, vs, sizeof vs, &err)) {
            gr_error_print(&err, stderr);
            gr_error_clear(&err);
        }
        gr_backend_free(s);
        bool ok = strcmp(vg, c->expect) == 0;
        agree += ok;
        printf("%-20s expect %-13s gpu %-13s sim %-13s %s\n", c->name, c->expect, vg, vs,
               ok ? "ok" : "MISMATCH");
        if (m) ptx_module_free(m);
    }
    printf("gpu_check: %d/%d agree with the expected verdict\n", agree, total);

    /* The last case trapped its context (a hang). A worker recovers by resetting the device's
     * primary context (gr_backend_free does it for a dead backend) or, failing that, by
     * starting afresh: the rate runs in this process when the reset worked, else in a new one. */
    gr_backend *probe = gr_gpu_backend_new(NULL, &err);
    uint64_t pbuf;
    bool recovered = probe && gr_backend_alloc(probe, 64, &pbuf, &err);
    printf("recovery after a trap: %s\n",
           recovered ? "in-process (primary context reset)" : "needs a fresh process");
    if (!recovered) {
        gr_error_print(&err, stderr);
        gr_error_clear(&err);
    }
    gr_backend_free(probe);
    bool rate_ok = recovered ? launch_rate(&err) : fresh_process_rate(argv[0]);
    if (!rate_ok && gr_error_failed(&err)) gr_error_print(&err, stderr);
    return agree == total ? 0 : 1;
}
