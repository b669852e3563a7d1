/* check.c — one of the program's launches, run instrumented in place of the original.
 *
 * The instrumented module (exec/gpu, attached to the program's context) has its own copies of
 * the unit's __device__ and __constant__ variables: the program's values are copied into them
 * on the launch's stream before the kernel, and the __device__ ones back after it, so the
 * program sees the results it would have seen. The launch runs on the program's stream and is
 * waited for (gpurace reads what the detector found); anything gpurace cannot check runs as
 * the program launched it and is listed. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/file.h"
#include "common/hash.h"
#include "exec/cudart/channel.h"
#include "exec/gpu/gpu.h"
#include "exec/gpuhook/gpuhook.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static bool selected(const gh_process *p, const char *name) {
    if (p->cfg.nkernels == 0) return true;
    for (int i = 0; i < p->cfg.nkernels; i++)
        if (strcmp(p->cfg.kernels[i], name) == 0) return true;
    return false;
}

/* Says once per kernel why its launches run unchecked. */
static void unchecked(gh_process *p, gh_kernel *k, const char *fmt, const char *why) {
    if (k && k->reported) return;
    if (k) k->reported = true;
    char msg[768];
    snprintf(msg, sizeof msg, fmt, why ? why : "");
    gh_fatal(p, "unchecked", k ? k->name : NULL, "kernel %s runs unchecked: %s",
             k && k->name ? k->name : "(unknown)", msg);
}

/* The name of a handle gpurace did not see created (a kernel loaded before it was there). */
static char *name_of_handle(void *f) {
    typedef CUresult (*name_fn)(const char **, void *);
    const char *name = NULL;
    void *sym = gh_real_driver_symbol("cuFuncGetName", NULL);
    name_fn fn;
    if (sym) {
        memcpy(&fn, &sym, sizeof fn);
        if (fn(&name, f) != CUDA_SUCCESS) name = NULL;
    }
    if (!name && (sym = gh_real_driver_symbol("cuKernelGetName", NULL))) {
        memcpy(&fn, &sym, sizeof fn);
        if (fn(&name, f) != CUDA_SUCCESS) name = NULL;
    }
    return name ? strdup(name) : NULL;
}

/* The backend attached to the current context (created on its first checked launch, tracking
 * every allocation seen so far): its index in p->gpus, or -1. */
static int attach(gh_process *p, gr_error *err) {
    CUcontext ctx = NULL;
    p->cu.CtxGetCurrent(&ctx);
    for (int i = 0; i < p->ngpus; i++)
        if (p->gpu_ctx[i] == ctx) return i;
    if (p->ngpus == GH_MAX_CONTEXTS) {
        gr_fail(err, GR_ERR_UNSUPPORTED, "the program uses more than %d CUDA contexts", GH_MAX_CONTEXTS);
        return -1;
    }
    gr_gpu_options o;
    gr_gpu_options_default(&o);
    o.coverage = false;
    o.grid_slices = true;
    gr_backend *b = gr_gpu_backend_attach(&o, &p->cu, ctx, err);
    if (!b) return -1;
    for (int i = 0; i < p->nallocs; i++)
        if (!gr_gpu_track(b, p->allocs[i].addr, p->allocs[i].size, err)) {
            gr_backend_free(b);
            return -1;
        }
    p->gpus[p->ngpus] = b;
    p->gpu_ctx[p->ngpus] = ctx;
    return p->ngpus++;
}

static const ptx_function *entry_named(const ptx_module *m, const char *name) {
    for (int32_t i = 0; i < m->nfunctions; i++)
        if (m->functions[i].is_entry && m->functions[i].has_body &&
            strcmp(m->functions[i].name, name) == 0)
            return &m->functions[i];
    return NULL;
}

/* The kernel's arguments as the program passed them: kernelParams[i], or the packed `extra`
 * buffer laid out by each parameter's alignment. */
static bool arguments(const ptx_function *fn, void **params, void **extra, gr_launch_arg *args) {
    if (params) {
        for (int i = 0; i < fn->nparams; i++) {
            args[i].data = params[i];
            args[i].size = (size_t)ptx_var_size(&fn->params[i]);
        }
        return true;
    }
    const char *buf = NULL;
    size_t len = 0;
    for (int i = 0; extra && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buf = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) len = *(const size_t *)extra[i + 1];
    }
    if (!buf && fn->nparams) return false;
    size_t off = 0;
    for (int i = 0; i < fn->nparams; i++) {
        size_t size = (size_t)ptx_var_size(&fn->params[i]);
        size_t align = fn->params[i].align ? fn->params[i].align : (size < 8 ? (size ? size : 1) : 8);
        off = (off + align - 1) / align * align;
        if (off + size > len) return false;
        args[i].data = buf + off;
        args[i].size = size;
        off += size;
    }
    return true;
}

/* Copies the unit's variables between the program's module and the instrumented one. */
static void copy_variables(gh_process *p, gr_backend *gpu, const gh_image *im, const gh_unit *u,
                           int module, CUstream stream, bool in) {
    typedef CUresult (*lib_global_fn)(CUdeviceptr *, size_t *, CUlibrary, const char *);
    typedef CUresult (*mod_global_fn)(CUdeviceptr *, size_t *, CUmodule, const char *);
    void *sym = p->get_global[im->is_library ? 1 : 0];
    void *managed_sym = im->is_library ? p->get_managed : sym;
    if (!sym) return;
    for (int32_t i = 0; i < u->module->nvars; i++) {
        const ptx_var *v = &u->module->vars[i];
        if (v->is_extern || (v->space != PTX_SPACE_GLOBAL && v->space != PTX_SPACE_CONST)) continue;
        if (!in && v->space == PTX_SPACE_CONST) continue; /* kernels cannot write constants */
        if (strncmp(v->name, "__gr_", 5) == 0) continue;
        CUdeviceptr theirs = 0;
        size_t their_size = 0, our_size = 0;
        CUresult r;
        if (im->is_library) {
            lib_global_fn fn;
            void *which = v->is_managed && managed_sym ? managed_sym : sym;
            memcpy(&fn, &which, sizeof fn);
            r = fn(&theirs, &their_size, (CUlibrary)im->handle, v->name);
        } else {
            mod_global_fn fn;
            memcpy(&fn, &sym, sizeof fn);
            r = fn(&theirs, &their_size, (CUmodule)im->handle, v->name);
        }
        uint64_t ours = 0;
        if (r != CUDA_SUCCESS || !gr_gpu_module_global(gpu, module, v->name, &ours, &our_size))
            continue;
        size_t n = their_size < our_size ? their_size : our_size;
        if (n == 0) continue;
        if (in) p->cu.MemcpyDtoDAsync((CUdeviceptr)ours, theirs, n, stream);
        else p->cu.MemcpyDtoDAsync(theirs, (CUdeviceptr)ours, n, stream);
    }
}

static uint64_t finding_signature(const gr_finding *f) {
    uint64_t h = gr_hash64(&f->cls, sizeof f->cls);
    h = gr_hash_bytes(h, &f->insn_id, sizeof f->insn_id);
    h = gr_hash_bytes(h, &f->insn_id2, sizeof f->insn_id2);
    return gr_hash_bytes(h, f->message, strnlen(f->message, 64));
}

static bool remember(gh_process *p, uint64_t sig) {
    for (size_t i = 0; i < p->nseen; i++)
        if (p->seen[i] == sig) return false;
    if (p->nseen == p->seen_cap) {
        size_t cap = p->seen_cap ? p->seen_cap * 2 : 64;
        uint64_t *grown = realloc(p->seen, cap * sizeof *grown);
        if (!grown) return true;
        p->seen = grown;
        p->seen_cap = cap;
    }
    p->seen[p->nseen++] = sig;
    return true;
}

/* Writes the unit's PTX into the findings folder once: the report reads source lines from it. */
static bool save_unit(gh_process *p, gh_unit *u, gr_error *err) {
    if (!p->cfg.findings_dir) return true;
    gr_record_module m = {u->ptx, u->ptx_len, u->hash, u->name, NULL, &u->file};
    return gr_save_module_ptx(p->cfg.findings_dir, &m, err);
}

static void print_findings(const gh_kernel *k, const gr_launch_result *res) {
    for (int i = 0; i < res->nfindings; i++)
        fprintf(stderr, "gpurace: %s in launch %" PRIu64 " of %s: %s\n",
                gr_finding_class_name(res->findings[i].cls), k->calls, k->name, res->findings[i].message);
}

static void record(gh_process *p, gh_kernel *k, gh_unit *u, const gr_launch *L,
                   const gr_launch_result *res) {
    bool fresh = false;
    for (int i = 0; i < res->nfindings; i++)
        if (remember(p, gr_hash_bytes(u->hash, &(uint64_t){finding_signature(&res->findings[i])}, 8)))
            fresh = true;
    if (!fresh && res->findings_dropped == 0) {
        if (res->nfindings) p->repeated++;
        return;
    }
    if (!p->cfg.run_dir) {
        print_findings(k, res);
        return;
    }
    gr_error err = GR_ERROR_INIT;
    if (!save_unit(p, u, &err)) {
        gh_fatal(p, "not-saved", k->name, "cannot save the PTX of %s: %s", u->name ? u->name : "a module",
                 err.message ? err.message : "I/O error");
        gr_error_clear(&err);
    }
    gr_run_launch_record r;
    gr_run_launch_record_init(&r, p->pid, p->launches, k->calls, k->name, u->file, L, res);
    r.schedule = "gpu";
    r.backend = "gpu";
    r.detector = "fsm";
    if (!gr_run_launch_write(p->cfg.run_dir, &r, &err)) {
        print_findings(k, res); /* never lose a finding */
        gh_fatal(p, "not-saved", k->name, "cannot save a launch record: %s",
                 err.message ? err.message : "I/O error");
        gr_error_clear(&err);
    }
}

/* The unit defining kernel k, parsed and built for the current context: NULL (said once, and
 * counted) when it cannot be checked. */
static gh_unit *prepared(gh_process *p, gh_kernel *k, gr_backend **gpu, int **module) {
    gh_unit *u = gh_unit_of(p, k->image, k->name);
    if (!u) {
        const gh_image *im = k->image >= 0 ? &p->images[k->image] : NULL;
        unchecked(p, k,
                  "%s: rebuild the program with PTX embedded (nvcc -gencode arch=compute_XX,"
                  "code=compute_XX, or the default -arch=sm_XX)",
                  im && im->ncubins ? "its image holds SASS only, no PTX" : "no PTX defines it");
        return NULL;
    }
    if (u->failed) {
        unchecked(p, k, "its PTX could not be read or instrumented%s", "");
        return NULL;
    }
    gr_error err = GR_ERROR_INIT;
    int g = attach(p, &err);
    if (g < 0) {
        unchecked(p, k, "%s", err.message ? err.message : "cannot attach to the GPU");
        gr_error_clear(&err);
        return NULL;
    }
    *gpu = p->gpus[g];
    *module = &u->backend_module[g];
    if (**module < 0 && !gr_gpu_module_add(*gpu, u->module, *module, &err)) {
        u->failed = true;
        unchecked(p, k, "its instrumented module could not be built: %s",
                  err.message ? err.message : "unknown error");
        gr_error_clear(&err);
        return NULL;
    }
    return u;
}

void gh_prepare_kernel(gh_process *p, void *handle) {
    gh_kernel *k = gh_kernel_find(p, handle);
    if (!k || !k->name || !selected(p, k->name)) return;
    gr_backend *gpu;
    int *module;
    /* a failure here is said, and the launches run unchecked */
    prepared(p, k, &gpu, &module);
}

/* --record: the program's allocations for gr_input_capture, read from the device once the
 * launch's stream has run what came before it. */
typedef struct record_memory {
    gh_process *p;
    CUstream stream;
    bool synced;
} record_memory;

static bool record_find(void *ctx, uint64_t ptr, uint64_t *base, uint64_t *size) {
    const gh_process *p = ((record_memory *)ctx)->p;
    for (int i = 0; i < p->nallocs; i++)
        if (ptr >= p->allocs[i].addr && ptr < p->allocs[i].addr + (p->allocs[i].size ? p->allocs[i].size : 1)) {
            *base = p->allocs[i].addr;
            *size = p->allocs[i].size;
            return true;
        }
    return false;
}

static bool record_read(void *ctx, uint64_t base, void *dst, uint64_t size) {
    record_memory *rm = ctx;
    if (!rm->synced && rm->p->cu.StreamSynchronize(rm->stream) != CUDA_SUCCESS) return false;
    rm->synced = true;
    return rm->p->cu.MemcpyDtoH(dst, (CUdeviceptr)base, size) == CUDA_SUCCESS;
}

/* --record: saves the launch's input (before it runs) as a seed, as the simulator's runtime does. */
static void record_seed(gh_process *p, gh_kernel *k, gh_unit *u, const gh_launch *l, void **params) {
    gr_error err = GR_ERROR_INIT;
    if (!u->have_sigs) u->have_sigs = gr_kernel_list_build(u->module, NULL, &u->sigs, &err);
    gr_error_clear(&err);
    const gr_kernel_sig *sig = NULL;
    for (int i = 0; u->have_sigs && i < u->sigs.count && !sig; i++)
        if (strcmp(u->sigs.kernels[i].ptx_name, k->name) == 0) sig = &u->sigs.kernels[i];
    if (!sig) return;
    const uint32_t grid[3] = {l->grid.x, l->grid.y, l->grid.z};
    const uint32_t block[3] = {l->block.x, l->block.y, l->block.z};
    gr_input_schedule sched = {GR_INPUT_SCHED_ROUND_ROBIN, 0, 8, 3};
    record_memory rm = {p, l->stream, false};
    gr_capture_memory mem = {record_find, record_read, &rm};
    gr_input in;
    if (!gr_input_capture(sig, grid, block, l->shared, &sched, params, &mem, &in)) {
        gh_fatal(p, "not-saved", k->name, "--record: cannot capture a launch of %s", k->name);
        return;
    }
    gr_record_module m = {u->ptx, u->ptx_len, u->hash, u->name, NULL, &u->seed_file};
    char note[1024];
    gr_record_outcome o = gr_recorder_add(&p->recorder, k->name, sig->qualified ? sig->qualified : k->name,
                                          &m, &in, note, sizeof note, &err);
    if (o == GR_RECORD_LEFT_OUT && note[0]) gh_note(p, "record-cap", k->name, "%s", note);
    if (o == GR_RECORD_FAILED)
        gh_fatal(p, "not-saved", k->name, "--record: cannot save a launch of %s in %s: %s", k->name,
                 p->cfg.record_dir, err.message ? err.message : "I/O error");
    gr_error_clear(&err);
    gr_input_free(&in);
}

/* The caller runs the program's own launch: counted as unchecked. */
static bool launch_unchecked(gh_process *p) {
    p->unchecked++;
    gh_publish_counters(p, false);
    return false;
}

bool gh_check_launch(gh_process *p, const gh_launch *l, CUresult *result) {
    p->launches++;
    gh_kernel *k = gh_kernel_find(p, l->f);
    if (!k) {
        char *name = name_of_handle(l->f);
        gh_kernel_named(p, l->f, NULL, name);
        free(name);
        k = gh_kernel_find(p, l->f);
    }
    if (!k || !k->name) {
        unchecked(p, k, "gpurace did not see it loaded and the driver does not name it%s", "");
        return launch_unchecked(p);
    }
    if (++k->calls == 1) p->kernels_launched++;
    if (!selected(p, k->name) || (p->cfg.max_checked && p->checked >= p->cfg.max_checked)) {
        gh_publish_counters(p, false);
        return false;
    }
    if (l->has_attrs) {
        unchecked(p, k, "it is launched with attributes gpurace does not model (clusters, "
                        "programmatic dependent launch)%s", "");
        return launch_unchecked(p);
    }
    gr_backend *gpu = NULL;
    int *module = NULL;
    gh_unit *u = prepared(p, k, &gpu, &module);
    if (!u) return launch_unchecked(p);
    gr_error err = GR_ERROR_INIT;
    const ptx_function *fn = entry_named(u->module, k->name);
    gr_launch_arg *args = calloc((size_t)(fn && fn->nparams ? fn->nparams : 1), sizeof *args);
    if (!fn || !args || !arguments(fn, l->params, l->extra, args)) {
        free(args);
        unchecked(p, k, "its arguments could not be read%s", "");
        return launch_unchecked(p);
    }
    gr_launch L;
    memset(&L, 0, sizeof L);
    L.kernel = k->name;
    L.grid = l->grid;
    L.block = l->block;
    L.dynamic_shared = l->shared;
    L.args = args;
    L.nargs = fn->nparams;
    L.detect = true;
    L.detector = GR_DETECTOR_FSM;
    L.warp_model = p->cfg.warp_model;
    L.step_budget = p->cfg.step_budget;
    L.max_findings = 64;
    const gh_image *im = &p->images[k->image];
    if (p->cfg.record_dir && l->params) record_seed(p, k, u, l, l->params);
    copy_variables(p, gpu, im, u, *module, l->stream, true);
    gr_launch_result res;
    double t0 = now();
    bool ok = gr_gpu_launch_on(gpu, *module, &L, l->stream, &res, &err);
    p->launch_seconds += now() - t0;
    gr_gpu_launch_stats stats;
    if (ok && gr_gpu_last_stats(gpu, &stats)) p->kernel_seconds += stats.kernel_ms / 1000.0;
    char dead[300];
    if (!ok) {
        gr_launch_result_free(&res);
        free(args);
        if (gr_gpu_is_dead(gpu, dead, sizeof dead)) {
            gh_fatal(p, "internal", k->name, "the GPU context was lost checking %s: %s", k->name, dead);
            *result = CUDA_ERROR_LAUNCH_FAILED;
            gh_publish_counters(p, false);
            return true;
        }
        unchecked(p, k, "%s", err.message ? err.message : "the checked launch failed");
        gr_error_clear(&err);
        return launch_unchecked(p);
    }
    bool lost = gr_gpu_is_dead(gpu, dead, sizeof dead);
    if (!lost) {
        copy_variables(p, gpu, im, u, *module, l->stream, false);
        p->cu.StreamSynchronize(l->stream);
    }
    p->checked++;
    if (res.partial_note[0] && !k->partial_noted) {
        k->partial_noted = true;
        gh_note(p, "partial", k->name, "kernel %s: %s", k->name, res.partial_note);
    }
    record(p, k, u, &L, &res);
    gr_launch_result_free(&res);
    free(args);
    gh_publish_counters(p, false);
    /* a trap or fault ends the context as it would have without gpurace */
    *result = lost ? CUDA_ERROR_LAUNCH_FAILED : CUDA_SUCCESS;
    return true;
}
