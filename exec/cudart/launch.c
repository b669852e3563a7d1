/* launch.c — one kernel launch of the program, run on the simulator.
 *
 *   configuration checks (the errors a GPU gives) → the kernel's module, loaded on first use
 *   → arguments as the PTX parameters lay them out → the launch's input captured as a gr_input
 *   (corpus/launch.h: grid, block, shared bytes, scalars, the bytes each pointer argument points
 *   at), when the detector runs → the simulator, in place on the program's memory → device
 *   printf to stdout → findings recorded (record.c) → a fault becomes the sticky error the
 *   program sees from its next call, as on a GPU.
 *
 * The captured input is what a witness holds, and what recording a program's launches as search
 * seeds needs as well. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/cudart/channel.h"
#include "exec/cudart/cudart_internal.h"
#include "exec/sim/sim.h"

double cr_seconds_between(struct timespec a, struct timespec b) {
    return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
}

static bool dim_ok(dim3 d) { return d.x && d.y && d.z; }

/* The launch configuration checks a GPU makes before running anything. */
static cudaError_t check_config(dim3 grid, dim3 block) {
    if (!dim_ok(grid) || !dim_ok(block)) return cudaErrorInvalidConfiguration;
    if (block.x > 1024 || block.y > 1024 || block.z > 64 ||
        (uint64_t)block.x * block.y * block.z > 1024)
        return cudaErrorInvalidConfiguration;
    if (grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535) return cudaErrorInvalidConfiguration;
    return cudaSuccess;
}

/* A scalar parameter's element type: from its C type when known, else from size and PTX type. */
/* "average(float const*, float*, int)::window" -> "window" (a kernel's static shared array). */
static char *short_var_name(const char *ptx_name) {
    char *d = gr_demangle(ptx_name);
    if (!d) return strdup(ptx_name);
    const char *last = d, *s = d;
    int depth = 0;
    for (; *s; s++) {
        if (*s == '(' || *s == '<') depth++;
        else if ((*s == ')' || *s == '>') && depth > 0) depth--;
        else if (depth == 0 && s[0] == ':' && s[1] == ':') last = s + 2;
    }
    char *name = strdup(last);
    free(d);
    return name;
}

/* The shared arrays the kernel sees (module scope and its own), named in the report as
 * `window[3]` rather than by address. */
static int shared_buffers(const cr_module *m, const cr_kernel *k, uint32_t dynamic_shared,
                          gr_run_buffer *b, int cap) {
    int n = 0;
    for (int scope = 0; scope < 2; scope++) {
        const ptx_var *vars = scope == 0 ? m->ir->vars : k->sig->fn->vars;
        int32_t nvars = scope == 0 ? m->ir->nvars : k->sig->fn->nvars;
        for (int32_t i = 0; i < nvars && n < cap; i++) {
            const ptx_var *v = &vars[i];
            gr_sim_symbol s;
            gr_error err = GR_ERROR_INIT;
            if (v->space != PTX_SPACE_SHARED || !gr_sim_symbol_find(m->backend, v->name, &s, &err)) {
                gr_error_clear(&err);
                continue;
            }
            /* nvcc declares shared arrays as aligned bytes (.align 4 .b8 tile[1024] for floats):
             * the alignment is the best guess at the element size */
            int es = ptx_type_size((ptx_type)v->type);
            if (es == 1 && v->align > 1) es = (int)v->align;
            b[n++] = (gr_run_buffer){short_var_name(v->name), PTX_SPACE_SHARED, s.addr,
                                     v->is_extern ? dynamic_shared : s.size, es > 0 ? (uint32_t)es : 1};
        }
    }
    return n;
}

/* Names for the memory a launch touches, for the report: pointer arguments, the module's
 * variables and shared arrays. */
static int launch_buffers(cr_process *p, const cr_kernel *k, void **args, uint32_t dynamic_shared,
                          gr_run_buffer **out) {
    const gr_kernel_sig *sig = k->sig;
    const cr_module *m = &p->modules[k->module];
    int nshared = m->ir->nvars + sig->fn->nvars;
    int cap = sig->nparams + p->nvars + nshared + 1, n = 0;
    gr_run_buffer *b = calloc((size_t)cap, sizeof *b);
    if (!b) return 0;
    for (int i = 0; i < sig->nparams; i++) {
        const gr_kernel_param *prm = &sig->params[i];
        if (prm->kind != GR_PARAM_POINTER || prm->size != 8) continue;
        uint64_t ptr;
        memcpy(&ptr, args[i], 8);
        const cr_alloc *a = cr_memory_find(&p->mem, ptr);
        if (!a) continue;
        gr_elem_type t;
        uint32_t es = prm->elem_type && gr_elem_parse(prm->elem_type, &t) ? (uint32_t)gr_elem_size(t) : 1;
        char nb[32];
        b[n++] = (gr_run_buffer){strdup(gr_param_display_name(prm, i, nb, sizeof nb)), PTX_SPACE_GLOBAL, ptr,
                                 a->addr + a->size - ptr, es};
    }
    for (int i = 0; i < p->nvars; i++) {
        const cr_var *v = &p->vars[i];
        if (v->module != k->module || v->constant) continue;
        uint8_t *host;
        uint64_t addr;
        if (cr_var_ready(p, (cr_var *)v, &host, &addr) != cudaSuccess) continue;
        char *pretty = gr_demangle(v->name);
        b[n++] = (gr_run_buffer){pretty ? pretty : strdup(v->name), PTX_SPACE_GLOBAL, addr, v->size, 1};
    }
    n += shared_buffers(m, k, dynamic_shared, b + n, cap - n);
    *out = b;
    return n;
}

static void buffers_free(gr_run_buffer *b, int n) {
    for (int i = 0; i < n; i++) free(b[i].name);
    free(b);
}

/* The program's memory for gr_input_capture: the runtime's allocations, read from their bytes. */
static bool memory_find(void *ctx, uint64_t ptr, uint64_t *base, uint64_t *size) {
    const cr_alloc *a = cr_memory_find(&((cr_process *)ctx)->mem, ptr);
    if (!a) return false;
    *base = a->addr;
    *size = a->size;
    return true;
}

static bool memory_read(void *ctx, uint64_t base, void *dst, uint64_t size) {
    const cr_alloc *a = cr_memory_find(&((cr_process *)ctx)->mem, base);
    if (!a || base - a->addr + size > a->size) return false;
    memcpy(dst, a->host + (base - a->addr), size);
    return true;
}

/* The launch's input (corpus/recording.h): what a witness replays and a recording keeps. */
static bool capture_input(cr_process *p, const cr_kernel *k, const gr_launch *L, void **args,
                          gr_input *in) {
    const uint32_t grid[3] = {L->grid.x, L->grid.y, L->grid.z};
    const uint32_t block[3] = {L->block.x, L->block.y, L->block.z};
    gr_input_schedule sched = {(gr_input_sched_kind)L->schedule.kind, L->schedule.seed,
                               L->schedule.quantum ? L->schedule.quantum : 8,
                               L->schedule.depth ? L->schedule.depth : 3};
    gr_capture_memory mem = {memory_find, memory_read, p};
    return gr_input_capture(k->sig, grid, block, L->dynamic_shared, &sched, args, &mem, in);
}

/* The error the program sees after a launch that did not end normally. */
static cudaError_t fault_error(const gr_launch_result *res) {
    const char *msg = "";
    for (int i = 0; i < res->nfindings; i++)
        if (res->findings[i].cls != GR_FINDING_RACE) msg = res->findings[i].message;
    switch (res->status) {
    case GR_EXEC_OK: return cudaSuccess;
    case GR_EXEC_OUT_OF_BOUNDS: return cudaErrorIllegalAddress;
    case GR_EXEC_HANG: return cudaErrorLaunchTimeout;
    case GR_EXEC_BARRIER_DIVERGENCE: return cudaErrorLaunchFailure;
    case GR_EXEC_TRAP:
        if (strstr(msg, "assert")) return cudaErrorAssert;
        if (strstr(msg, "misaligned")) return cudaErrorMisalignedAddress;
        return cudaErrorLaunchFailure;
    }
    return cudaErrorLaunchFailure;
}

cudaError_t cr_launch(cr_process *p, cr_kernel *k, dim3 grid, dim3 block, void **args,
                      size_t shared, cudaStream_t stream) {
    if (!cr_stream_valid(p, stream)) return cudaErrorInvalidResourceHandle;
    cudaError_t e = check_config(grid, block);
    if (e != cudaSuccess) return e;
    e = cr_kernel_ready(p, k);
    if (e != cudaSuccess) return e;
    const gr_kernel_sig *sig = k->sig;
    if (shared > cr_kernel_max_dynamic_shared(k) ||
        sig->static_shared_bytes + shared > CR_SHARED_PER_BLOCK_OPTIN)
        return cudaErrorInvalidValue;
    if (sig->nparams > 0 && !args) return cudaErrorInvalidValue;
    gr_launch_arg *largs = calloc((size_t)sig->nparams + 1, sizeof *largs);
    if (!largs) return cudaErrorMemoryAllocation;
    for (int i = 0; i < sig->nparams; i++) largs[i] = (gr_launch_arg){args[i], (size_t)sig->params[i].size};

    bool detect = k->checked && (p->cfg.max_checked == 0 || p->checked < p->cfg.max_checked);
    gr_launch L = {0};
    L.kernel = k->name;
    L.grid = (gr_dim3){grid.x, grid.y, grid.z};
    L.block = (gr_dim3){block.x, block.y, block.z};
    L.dynamic_shared = (uint32_t)shared;
    L.args = largs;
    L.nargs = sig->nparams;
    L.schedule = p->cfg.schedule;
    L.step_budget = p->cfg.step_budget;
    L.detect = detect;
    L.detector = p->cfg.detector;
    L.warp_model = p->cfg.warp_model;
    L.confirm = p->cfg.confirm;
    k->calls++;
    if (k->calls == 1) p->kernels_launched++;
    p->launches++;
    if (detect) p->checked++;

    /* the input is captured before the launch changes it: for a witness, and for --record */
    bool record = p->cfg.record_dir && k->checked;
    gr_input in;
    bool have_input = (detect || record) && capture_input(p, k, &L, args, &in);
    if (record && !have_input)
        cr_fatal(p, "not-saved", k->name, "--record: out of memory capturing a launch of %s", k->name);
    else if (record)
        cr_record_seed(p, k, &in);
    gr_launch_result res;
    gr_error err = GR_ERROR_INIT;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bool ok = gr_backend_launch(p->modules[k->module].backend, &L, &res, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    p->launch_seconds += cr_seconds_between(t0, t1);
    if (!ok) {
        char *pretty = gr_demangle(k->name);
        cr_fatal(p, err.status == GR_ERR_NOMEM || err.status == GR_ERR_INTERNAL ? "internal" : "unsupported",
                 k->name, "launch %" PRIu64 " of %s (grid (%u,%u,%u), block (%u,%u,%u)) cannot run on "
                 "gpurace's simulator: %s",
                 k->calls, pretty ? pretty : k->name, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                 err.message ? err.message : "error");
        free(pretty);
        gr_error_clear(&err);
        e = cudaErrorLaunchFailure;
    } else {
        if (res.printf_len) fwrite(res.printf_output, 1, res.printf_len, stdout);
        p->thread_instructions += res.thread_instructions;
        if (res.nfindings || res.findings_dropped) {
            gr_run_buffer *bufs = NULL;
            int nbufs = launch_buffers(p, k, args, L.dynamic_shared, &bufs);
            cr_record_launch(p, k, &L, &res, have_input ? &in : NULL, bufs, nbufs);
            buffers_free(bufs, nbufs);
        }
        e = fault_error(&res);
        if (e != cudaSuccess) p->sticky = e;
        /* launches are asynchronous: a fault shows at the next call, not at the launch */
        e = cudaSuccess;
        gr_launch_result_free(&res);
    }
    if (have_input) gr_input_free(&in);
    free(largs);
    cr_publish_counters(p, false);
    return e;
}
