/* gpu_backend.c — the CUDA backend (see gpu.h): device memory, module loading, launches and
 * turning the device runtime's tables into findings. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/gpu/device/rt_abi.h"
#include "exec/gpu/driver.h"
#include "exec/gpu/gpu.h"
#include "jit/analysis/readonly.h"
#include "oracle/fsm_rules.h"
#include "oracle/race.h"

#define ALLOC_ALIGN 256u   /* launch buffers start 256-byte aligned ... */
#define REDZONE 256u       /* ... and are followed by a poisoned red zone at least this long;
                            * the first one is preceded by one too (buf[-1] is out of bounds) */
#define RECORD_CAP 1024u   /* distinct race signatures kept per launch */
#define DEDUP_CAP 4096u    /* signature slots (power of two) */
#define SHARED_ADDR_BASE 0x10000000000ull /* shared offsets reported like the simulator's */

typedef struct gpu_alloc {
    uint64_t addr, size;
} gpu_alloc;

/* A device allocation that grows to the largest size asked for. */
typedef struct gpu_table {
    CUdeviceptr ptr;
    size_t size;
} gpu_table;

/* What a launch copies into the module's runtime symbols, staged in pinned host memory so the
 * copies are asynchronous and ordered on the launch's stream. */
typedef struct launch_staging {
    gr_rt_params params;
    uint32_t budget, ro_params;
    uint64_t ro_bounds[2 * GR_RT_RO_BOUNDS_PARAMS];
    uint64_t skip[2 * GR_RT_SKIP_SLOTS];
} launch_staging;

/* One loaded, instrumented module and where its runtime symbols live. */
typedef struct gpu_module {
    const ptx_module *m;
    CUmodule mod;
    CUdeviceptr rt_params, rt_budget, rt_cov, rt_ro, rt_ro_bounds, rt_skip;
    gr_gpu_prep_stats prep; /* read-only parameter candidates, guard slots, sliceable */
    uint32_t ncov;
    CUdeviceptr globals_lo, globals_hi;
    gpu_table globals_shadow;
    /* kernels launched so far, with what the driver says of them (asked once, not per launch) */
    struct gpu_kernel {
        const ptx_function *fn;
        CUfunction func;
        int static_smem, registers;
        int dyn_limit; /* the dynamic shared memory limit last set, -1 before */
    } kernels[32];
    int nkernels;
} gpu_module;

typedef struct gpu_backend {
    gr_backend base;
    gr_gpu_options opt;
    gr_cu cu;
    CUdevice dev;
    CUcontext ctx;
    bool ctx_retained;
    int sm;                 /* 90 for sm_90 */
    int reserved_smem, max_smem_optin;
    char name[200];
    bool dead;              /* a sticky error destroyed the context */
    bool attached;          /* runs a program's launches on its context and memory (gpu.h) */
    size_t shadow_cap;      /* attached: bytes of arena_shadow allocated */
    char dead_why[300];

    gpu_module **mods;      /* the backend's own launches use mods[0], replaced by each load;
                             * attached to a program, one per module it loads */
    int nmods;
    gpu_module *cur;        /* the module of the launch being made */

    CUdeviceptr arena, arena_shadow;
    size_t arena_cap, arena_used;
    gpu_alloc *allocs;
    size_t nallocs, allocs_cap;

    gpu_table threads, records, bar_hist, user_call;
    /* The tables every launch starts from zero, in one allocation cleared with one memset:
     * counters, dedup, blocks, warps, bar_fold (their .ptr point into it; they own nothing). */
    gpu_table zeroed;
    gpu_table counters, dedup, blocks, warps, bar_fold;
    gr_rt_hang *hang_host;
    CUdeviceptr hang_dev;
    launch_staging *staging; /* pinned */
    CUevent ev_start, ev_end;

    gr_gpu_launch_stats last;
    bool have_last;
} gpu_backend;

static const gr_backend_ops gpu_ops;

/* ---- errors ------------------------------------------------------------------------------------ */

static bool cu_fail(gpu_backend *g, CUresult r, const char *what, gr_error *err) {
    char d[256];
    gr_cu_describe(&g->cu, r, d, sizeof d);
    return gr_fail(err, GR_ERR_INTERNAL, "GPU: %s failed: %s", what, d);
}

#define CU_TRY(g, call, what, err)                                                              \
    do {                                                                                         \
        CUresult cu_r_ = (call);                                                                 \
        if (cu_r_ != CUDA_SUCCESS) return cu_fail((g), cu_r_, (what), (err));                    \
    } while (0)

static bool check_alive(const gpu_backend *g, gr_error *err) {
    if (!g->dead) return true;
    return gr_fail(err, GR_ERR_INTERNAL,
                   "the GPU context was lost after an earlier launch (%s); restart the worker",
                   g->dead_why);
}

static bool table_reserve(gpu_backend *g, gpu_table *t, size_t bytes, gr_error *err) {
    if (bytes == 0) bytes = 8;
    if (t->size >= bytes) return true;
    if (t->ptr) g->cu.MemFree(t->ptr);
    t->ptr = 0;
    t->size = 0;
    CU_TRY(g, g->cu.MemAlloc(&t->ptr, bytes), "allocating runtime tables", err);
    t->size = bytes;
    return true;
}

/* ---- creation ------------------------------------------------------------------------------------ */

bool gr_gpu_available(char *why, size_t n) {
    char buf[300];
    if (!why) {
        why = buf;
        n = sizeof buf;
    }
    gr_cu cu;
    if (!gr_cu_load(&cu, why, n)) return false;
    CUresult r = cu.Init(0);
    int count = 0;
    bool ok = false;
    if (r != CUDA_SUCCESS) {
        char d[200];
        gr_cu_describe(&cu, r, d, sizeof d);
        snprintf(why, n, "the CUDA driver failed to initialize (%s)", d);
    } else if (cu.DeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
        snprintf(why, n, "the CUDA driver found no GPU");
    } else {
        ok = true;
        snprintf(why, n, "%d GPU%s", count, count == 1 ? "" : "s");
    }
    gr_cu_unload(&cu);
    return ok;
}

/* The device's figures, the events and the host-mapped hang record, for g->dev with g->ctx
 * current. False with the failing call's result in *r. */
static bool device_setup(gpu_backend *g, CUresult *r) {
    int major = 0, minor = 0;
    bool ok = (*r = g->cu.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                             g->dev)) == CUDA_SUCCESS &&
              (*r = g->cu.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                             g->dev)) == CUDA_SUCCESS &&
              (*r = g->cu.DeviceGetAttribute(&g->reserved_smem,
                                             CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
                                             g->dev)) == CUDA_SUCCESS &&
              (*r = g->cu.DeviceGetAttribute(&g->max_smem_optin,
                                             CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                             g->dev)) == CUDA_SUCCESS &&
              (*r = g->cu.EventCreate(&g->ev_start, CU_EVENT_DEFAULT)) == CUDA_SUCCESS &&
              (*r = g->cu.EventCreate(&g->ev_end, CU_EVENT_DEFAULT)) == CUDA_SUCCESS &&
              (*r = g->cu.MemHostAlloc((void **)&g->hang_host, sizeof(gr_rt_hang),
                                       CU_MEMHOSTALLOC_DEVICEMAP)) == CUDA_SUCCESS &&
              (*r = g->cu.MemHostGetDevicePointer(&g->hang_dev, g->hang_host, 0)) == CUDA_SUCCESS &&
              (*r = g->cu.MemHostAlloc((void **)&g->staging, sizeof *g->staging, 0)) == CUDA_SUCCESS;
    if (!ok) return false;
    g->sm = major * 10 + minor;
    char dev_name[128] = "GPU";
    g->cu.DeviceGetName(dev_name, (int)sizeof dev_name, g->dev);
    snprintf(g->name, sizeof g->name, "%s, sm_%d", dev_name, g->sm);
    return true;
}

int gr_gpu_count(void) {
    char why[300];
    gr_cu cu;
    if (!gr_cu_load(&cu, why, sizeof why)) return 0;
    int count = 0;
    if (cu.Init(0) != CUDA_SUCCESS || cu.DeviceGetCount(&count) != CUDA_SUCCESS) count = 0;
    gr_cu_unload(&cu);
    return count;
}

/* A backend with options `o` (NULL: the defaults) and nothing else yet. */
static gpu_backend *backend_alloc(const gr_gpu_options *o, gr_error *err) {
    gpu_backend *g = calloc(1, sizeof *g);
    if (!g) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        return NULL;
    }
    g->base.ops = &gpu_ops;
    if (o) g->opt = *o;
    else gr_gpu_options_default(&g->opt);
    return g;
}

gr_backend *gr_gpu_backend_new(const gr_gpu_options *o, gr_error *err) {
    gpu_backend *g = backend_alloc(o, err);
    if (!g) return NULL;
    char why[300];
    if (!gr_cu_load(&g->cu, why, sizeof why)) {
        gr_fail(err, GR_ERR_UNSUPPORTED, "no usable GPU: %s", why);
        free(g);
        return NULL;
    }
    CUresult r = g->cu.Init(0);
    int count = 0;
    if (r == CUDA_SUCCESS) r = g->cu.DeviceGetCount(&count);
    if (r != CUDA_SUCCESS || count <= g->opt.device || g->opt.device < 0) {
        char d[200];
        if (r != CUDA_SUCCESS) gr_cu_describe(&g->cu, r, d, sizeof d);
        else snprintf(d, sizeof d, "device %d requested, %d present", g->opt.device, count);
        gr_fail(err, GR_ERR_UNSUPPORTED, "no usable GPU: %s", d);
        gr_cu_unload(&g->cu);
        free(g);
        return NULL;
    }
    if (r == CUDA_SUCCESS) r = g->cu.DeviceGet(&g->dev, g->opt.device);
    bool ok = r == CUDA_SUCCESS && (r = g->cu.PrimaryCtxRetain(&g->ctx, g->dev)) == CUDA_SUCCESS;
    if (ok) {
        g->ctx_retained = true;
        ok = (r = g->cu.CtxSetCurrent(g->ctx)) == CUDA_SUCCESS && device_setup(g, &r);
    }
    if (!ok) {
        char d[200];
        gr_cu_describe(&g->cu, r, d, sizeof d);
        gr_fail(err, GR_ERR_UNSUPPORTED, "no usable GPU: %s", d);
        gr_backend_free(&g->base);
        return NULL;
    }
    return &g->base;
}

const char *gr_gpu_device_name(const gr_backend *b) {
    if (!b || b->ops != &gpu_ops) return "";
    return ((const gpu_backend *)b)->name;
}

bool gr_gpu_last_stats(const gr_backend *b, gr_gpu_launch_stats *out) {
    if (!b || b->ops != &gpu_ops) return false;
    const gpu_backend *g = (const gpu_backend *)b;
    if (!g->have_last) return false;
    *out = g->last;
    return true;
}

/* ---- module ------------------------------------------------------------------------------------- */

/* Builds and loads the instrumented module for `m` into `gm` (replacing what it held). */
static bool module_load(gpu_backend *g, gpu_module *gm, const ptx_module *m, gr_error *err) {
    g->cu.CtxSetCurrent(g->ctx);
    char sm[16];
    snprintf(sm, sizeof sm, "sm_%d", g->sm);
    void *cubin = NULL;
    size_t len = 0;
    gr_gpu_prep_stats st;
    if (!gr_gpu_build_cubin(m, &g->opt, sm, &cubin, &len, NULL, &st, err)) return false;
    if (gm->mod) g->cu.ModuleUnload(gm->mod);
    gm->mod = NULL;
    CUresult r = g->cu.ModuleLoadData(&gm->mod, cubin);
    free(cubin);
    if (r != CUDA_SUCCESS) return cu_fail(g, r, "loading the module", err);
    gm->m = m;
    gm->prep = st;
    gm->nkernels = 0;
    gm->ncov = st.coverage_blocks < GR_RT_COV_MAX ? st.coverage_blocks : GR_RT_COV_MAX;
    gm->rt_params = gm->rt_budget = gm->rt_cov = gm->rt_ro = gm->rt_ro_bounds = gm->rt_skip = 0;
    if (g->opt.instrument) {
        size_t sz;
        CU_TRY(g, g->cu.ModuleGetGlobal(&gm->rt_params, &sz, gm->mod, GR_RT_PARAMS_NAME),
               "finding the runtime parameters", err);
        CU_TRY(g, g->cu.ModuleGetGlobal(&gm->rt_budget, &sz, gm->mod, GR_RT_BUDGET_NAME),
               "finding the step budget", err);
        CU_TRY(g, g->cu.ModuleGetGlobal(&gm->rt_cov, &sz, gm->mod, GR_RT_COV_NAME),
               "finding the coverage bytes", err);
        CU_TRY(g, g->cu.ModuleGetGlobal(&gm->rt_ro, &sz, gm->mod, GR_RT_RO_PARAMS_NAME),
               "finding the read-only parameter mask", err);
        CU_TRY(g, g->cu.ModuleGetGlobal(&gm->rt_ro_bounds, &sz, gm->mod, GR_RT_RO_BOUNDS_NAME),
               "finding the parameter bounds", err);
        CU_TRY(g, g->cu.ModuleGetGlobal(&gm->rt_skip, &sz, gm->mod, GR_RT_SKIP_NAME),
               "finding the guard slots", err);
    }
    /* The user's .global variables: one shadowed range around all of them. */
    gm->globals_lo = gm->globals_hi = 0;
    for (int32_t i = 0; i < m->nvars; i++) {
        const ptx_var *v = &m->vars[i];
        if (v->space != PTX_SPACE_GLOBAL || v->is_extern) continue;
        CUdeviceptr p;
        size_t sz;
        if (g->cu.ModuleGetGlobal(&p, &sz, gm->mod, v->name) != CUDA_SUCCESS || sz == 0) continue;
        if (!gm->globals_lo || p < gm->globals_lo) gm->globals_lo = p;
        if (p + sz > gm->globals_hi) gm->globals_hi = p + sz;
    }
    if (gm->globals_hi > gm->globals_lo && g->opt.instrument) {
        gm->globals_lo &= ~(CUdeviceptr)3;
        if (!table_reserve(g, &gm->globals_shadow, (gm->globals_hi - gm->globals_lo + 3) / 4 * 8, err))
            return false;
    }
    return true;
}

/* A new empty module slot, appended to g->mods. */
static gpu_module *module_slot(gpu_backend *g, gr_error *err) {
    gpu_module **mods = realloc(g->mods, (size_t)(g->nmods + 1) * sizeof *mods);
    if (!mods) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        return NULL;
    }
    g->mods = mods;
    gpu_module *gm = calloc(1, sizeof *gm);
    if (!gm) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        return NULL;
    }
    mods[g->nmods++] = gm;
    return gm;
}

static bool gpu_load(gr_backend *b, const ptx_module *m, gr_error *err) {
    gpu_backend *g = (gpu_backend *)b;
    if (!check_alive(g, err)) return false;
    if (g->nmods == 0 && !module_slot(g, err)) return false;
    g->cur = g->mods[0];
    return module_load(g, g->cur, m, err);
}

/* ---- memory ------------------------------------------------------------------------------------- */

static bool arena_init(gpu_backend *g, gr_error *err) {
    if (g->arena) return true;
    size_t cap = g->opt.arena_bytes;
    if (cap == 0) {
        size_t total = 0;
        CU_TRY(g, g->cu.DeviceTotalMem(&total, g->dev), "querying device memory", err);
        /* modest by default: the shadow takes twice as much, and fuzz workers and parallel
         * test runs each hold an arena on the same GPU */
        cap = total / 32;
        if (cap > ((size_t)2 << 30)) cap = (size_t)2 << 30;
    }
    /* Several gpurace processes (fuzz --jobs, parallel test runs) share one GPU: when the
     * arena and its shadow (twice its size) do not fit in what is free, halve and retry. */
    enum { MIN_ARENA = 16 << 20 };
    for (;;) {
        cap = (cap + 4095) & ~(size_t)4095;
        const char *what = "allocating the launch arena";
        CUresult r = g->cu.MemAlloc(&g->arena, cap);
        if (r == CUDA_SUCCESS && g->opt.instrument) {
            what = "allocating the shadow arena";
            r = g->cu.MemAlloc(&g->arena_shadow, cap * 2);
            if (r != CUDA_SUCCESS) {
                g->cu.MemFree(g->arena);
                g->arena = 0;
            }
        }
        if (r == CUDA_SUCCESS) break;
        if (r != CUDA_ERROR_OUT_OF_MEMORY || cap / 2 < MIN_ARENA || g->opt.arena_bytes)
            return cu_fail(g, r, what, err);
        cap /= 2;
    }
    g->arena_cap = cap;
    return true;
}

static bool gpu_alloc_fn(gr_backend *b, size_t size, uint64_t *addr, gr_error *err) {
    gpu_backend *g = (gpu_backend *)b;
    if (!check_alive(g, err)) return false;
    g->cu.CtxSetCurrent(g->ctx);
    if (!arena_init(g, err)) return false;
    size_t lead = g->arena_used ? 0 : REDZONE; /* the red zone before the first buffer */
    size_t need = lead + ((size ? size : 1) + ALLOC_ALIGN - 1) / ALLOC_ALIGN * ALLOC_ALIGN + REDZONE;
    if (need > g->arena_cap - g->arena_used)
        return gr_fail(err, GR_ERR_NOMEM,
                       "GPU arena full: %zu bytes requested, %zu of %zu in use (set "
                       "gr_gpu_options.arena_bytes)",
                       size, g->arena_used, g->arena_cap);
    if (g->nallocs == g->allocs_cap) {
        size_t cap = g->allocs_cap ? g->allocs_cap * 2 : 16;
        gpu_alloc *a = realloc(g->allocs, cap * sizeof *a);
        if (!a) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
        g->allocs = a;
        g->allocs_cap = cap;
    }
    uint64_t at = g->arena + g->arena_used + lead;
    if (size) CU_TRY(g, g->cu.MemsetD8(at, 0, size), "clearing a buffer", err);
    g->allocs[g->nallocs++] = (gpu_alloc){at, size};
    g->arena_used += need;
    *addr = at;
    return true;
}

static bool in_arena(const gpu_backend *g, uint64_t addr, size_t size) {
    for (size_t i = 0; i < g->nallocs; i++)
        if (addr >= g->allocs[i].addr && addr + size <= g->allocs[i].addr + g->allocs[i].size)
            return true;
    return false;
}

static bool gpu_write(gr_backend *b, uint64_t addr, const void *src, size_t size, gr_error *err) {
    gpu_backend *g = (gpu_backend *)b;
    if (!check_alive(g, err)) return false;
    if (size == 0) return true;
    if (!in_arena(g, addr, size))
        return gr_fail(err, GR_ERR_USAGE, "write of %zu bytes at 0x%" PRIx64 " outside every buffer",
                       size, addr);
    g->cu.CtxSetCurrent(g->ctx);
    CU_TRY(g, g->cu.MemcpyHtoD(addr, src, size), "copying to the GPU", err);
    return true;
}

static bool gpu_read(gr_backend *b, uint64_t addr, void *dst, size_t size, gr_error *err) {
    gpu_backend *g = (gpu_backend *)b;
    if (!check_alive(g, err)) return false;
    if (size == 0) return true;
    if (!in_arena(g, addr, size))
        return gr_fail(err, GR_ERR_USAGE, "read of %zu bytes at 0x%" PRIx64 " outside every buffer",
                       size, addr);
    g->cu.CtxSetCurrent(g->ctx);
    CU_TRY(g, g->cu.MemcpyDtoH(dst, addr, size), "copying from the GPU", err);
    return true;
}

/* ---- launch ------------------------------------------------------------------------------------- */

static const ptx_function *find_entry(const ptx_module *m, const char *name, gr_error *err) {
    const ptx_function *found = NULL;
    int entries = 0;
    for (int32_t i = 0; i < m->nfunctions; i++) {
        const ptx_function *f = &m->functions[i];
        if (!f->is_entry || !f->has_body) continue;
        entries++;
        if (name ? strcmp(f->name, name) == 0 : !found) found = f;
    }
    if (name && !found) {
        gr_fail(err, GR_ERR_USAGE, "no kernel named '%s' in %s", name, m->source_name);
        return NULL;
    }
    if (!name && entries != 1) {
        gr_fail(err, GR_ERR_USAGE, "%s defines %d kernels; name one", m->source_name, entries);
        return NULL;
    }
    return found;
}

static gr_exec_thread thread_of(uint32_t linear, gr_dim3 grid, gr_dim3 block) {
    uint32_t tpb = block.x * block.y * block.z;
    uint32_t b = linear / tpb, i = linear % tpb;
    gr_exec_thread t;
    t.block = (gr_dim3){b % grid.x, b / grid.x % grid.y, b / (grid.x * grid.y)};
    t.thread = (gr_dim3){i % block.x, i / block.x % block.y, i / (block.x * block.y)};
    return t;
}

static gr_finding *add_finding(gr_launch_result *res, uint32_t max, gr_error *err) {
    if ((uint32_t)res->nfindings >= max) {
        res->findings_dropped++;
        return NULL;
    }
    gr_finding *nf = realloc(res->findings, (size_t)(res->nfindings + 1) * sizeof *nf);
    if (!nf) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        return NULL;
    }
    res->findings = nf;
    gr_finding *f = &nf[res->nfindings++];
    memset(f, 0, sizeof *f);
    f->insn_id = f->insn_id2 = UINT32_MAX;
    return f;
}

/* Attached: the program's memory has no red zones of gpurace's making; the bytes after each
 * allocation up to the allocator's 512-byte granule belong to no allocation, so they are
 * poisoned (a read just past the end is out of bounds), and gaps beyond stay plain memory
 * (gpurace may not have seen every allocation there). Only the allocations' shadow is cleared
 * per launch: the span between them can be several times their size (the driver places large
 * and small allocations apart), and gaps were cleared when the shadow was made. */
static bool reset_attached_shadow(gpu_backend *g, CUstream s, gr_error *err) {
    if (!g->arena_used) return true;
    uint64_t hi = g->arena + g->arena_used;
    for (size_t i = 0; i < g->nallocs; i++) {
        uint64_t start = g->allocs[i].addr & ~3ull;
        uint64_t end = (g->allocs[i].addr + g->allocs[i].size + 3) & ~3ull;
        uint64_t zone = (g->allocs[i].addr + g->allocs[i].size + 511) & ~511ull;
        if (i + 1 < g->nallocs && g->allocs[i + 1].addr < zone) zone = g->allocs[i + 1].addr & ~3ull;
        if (zone > hi) zone = hi;
        if (end > zone) end = zone;
        if (end > start)
            CU_TRY(g, g->cu.MemsetD32Async(g->arena_shadow + (start - g->arena) * 2, 0, (end - start) / 2, s),
                   "clearing the shadow", err);
        if (zone > end)
            CU_TRY(g, g->cu.MemsetD32Async(g->arena_shadow + (end - g->arena) * 2, 0xFu, (zone - end) / 2, s),
                   "poisoning red zones", err);
    }
    return true;
}

/* Per-launch reset of the shadow: zero for buffers, poison for the red zones between them;
 * ordered on the launch's stream `s`. */
static bool reset_shadow(gpu_backend *g, CUstream s, gr_error *err) {
    if (g->attached) {
        if (!reset_attached_shadow(g, s, err)) return false;
    } else if (g->arena_used) {
        CU_TRY(g, g->cu.MemsetD32Async(g->arena_shadow, 0, g->arena_used / 2, s), "clearing the shadow", err);
        uint64_t first = g->nallocs ? g->allocs[0].addr : g->arena + g->arena_used;
        if (first > g->arena)
            CU_TRY(g, g->cu.MemsetD32Async(g->arena_shadow, 0xFu, (first - g->arena) / 2, s),
                   "poisoning red zones", err);
        for (size_t i = 0; i < g->nallocs; i++) {
            uint64_t end = (g->allocs[i].addr + g->allocs[i].size + 3) & ~3ull;
            uint64_t next = i + 1 < g->nallocs ? g->allocs[i + 1].addr : g->arena + g->arena_used;
            if (next <= end) continue;
            CU_TRY(g, g->cu.MemsetD32Async(g->arena_shadow + (end - g->arena) * 2, 0xFu, (next - end) / 2, s),
                   "poisoning red zones", err);
        }
    }
    if (g->cur->globals_shadow.ptr)
        CU_TRY(g, g->cu.MemsetD8Async(g->cur->globals_shadow.ptr, 0, g->cur->globals_shadow.size, s),
               "clearing the shadow", err);
    return true;
}

static bool wait_kernel(gpu_backend *g, CUstream stream, CUresult *status) {
    const char *env = getenv("GPURACE_GPU_TIMEOUT");
    double limit = env && atof(env) > 0 ? atof(env) : 60.0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned spin = 0;; spin++) {
        CUresult r = g->cu.StreamQuery(stream);
        if (r != CUDA_ERROR_NOT_READY) {
            *status = r;
            return true;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        double s = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) * 1e-9;
        if (s > limit) return false;
        if (spin > 1000) {
            struct timespec nap = {0, 200000};
            nanosleep(&nap, NULL);
        }
    }
}

static const char *file_name(const ptx_module *m, uint32_t index) {
    for (int32_t i = 0; i < m->nfiles; i++)
        if (m->files[i].index == (int32_t)index) return m->files[i].path;
    return "?";
}

/* The launch buffer holding addr, or -1. */
static long alloc_index(const gpu_backend *g, uint64_t addr) {
    for (size_t i = 0; i < g->nallocs; i++)
        if (addr >= g->allocs[i].addr && addr < g->allocs[i].addr + (g->allocs[i].size ? g->allocs[i].size : 1))
            return (long)i;
    return -1;
}

/* Bit i set: the kernel's loads through parameter i may go unchecked in this launch. The
 * analysis (jit/analysis/readonly.h) says no write derives from i; the arguments must show
 * that no other parameter, which may be written, points into i's buffer; for a parameter whose
 * buffer only private accesses touch (intervals.h), that no other parameter at all does
 * (gr_readonly_launch_bits, the check the simulator makes too). */
static uint32_t readonly_params(const gpu_backend *g, const char *kernel, const gr_launch *l) {
    uint32_t candidates = 0, exclusive = 0;
    for (uint32_t k = 0; k < g->cur->prep.ro_kernels; k++)
        if (strcmp(g->cur->prep.ro[k].name, kernel) == 0) {
            candidates = g->cur->prep.ro[k].params;
            exclusive = g->cur->prep.ro[k].exclusive;
        }
    int n = l->nargs > 0 ? l->nargs : 0;
    int64_t *arg_buffer = malloc(((size_t)n + 1) * sizeof *arg_buffer);
    if (!arg_buffer) return 0; /* every check stays */
    for (int i = 0; i < n; i++) {
        arg_buffer[i] = GR_READONLY_ARG_NOT_POINTER;
        if (l->args[i].size != 8) continue;
        uint64_t v;
        memcpy(&v, l->args[i].data, 8);
        long buf = alloc_index(g, v);
        arg_buffer[i] = buf >= 0 ? buf : GR_READONLY_ARG_NO_BUFFER;
    }
    uint32_t bits = gr_readonly_launch_bits(candidates, exclusive, arg_buffer, n);
    free(arg_buffer);
    return bits;
}

/* Per parameter (the first 32): the launch buffer its value points into, {start, size}; {0, 0}
 * for integers and pointers outside every buffer. Loads that skip the race check (read-only
 * buffers, ld.global.nc) still compare their address with these bounds, and call the hook,
 * which reports an out-of-bounds access in a red zone or outside the arena, when it falls
 * outside. */
static void param_bounds(const gpu_backend *g, const gr_launch *l, uint64_t *bounds) {
    memset(bounds, 0, 2 * GR_RT_RO_BOUNDS_PARAMS * sizeof *bounds);
    for (int i = 0; i < l->nargs && i < (int)GR_RT_RO_BOUNDS_PARAMS; i++) {
        if (l->args[i].size != 8) continue;
        uint64_t v;
        memcpy(&v, l->args[i].data, 8);
        long buf = alloc_index(g, v);
        if (buf < 0) continue;
        bounds[2 * i] = g->allocs[buf].addr;
        bounds[2 * i + 1] = g->allocs[buf].size;
    }
}

void gr_gpu_skip_bounds(const gr_gpu_prep_stats *prep, const char *kernel, uint32_t ro_params,
                        const uint64_t *bounds, gr_dim3 grid, gr_dim3 block, uint64_t *table) {
    memset(table, 0, 2 * GR_RT_SKIP_SLOTS * sizeof *table);
    const uint32_t ntid[3] = {block.x, block.y, block.z}, nctaid[3] = {grid.x, grid.y, grid.z};
    for (uint32_t i = 0; i < prep->skip_slots && i < GR_RT_SKIP_SLOTS; i++) {
        const gr_gpu_skip_slot *sl = &prep->skip[i];
        if (sl->kernel >= prep->ro_kernels || strcmp(prep->ro[sl->kernel].name, kernel) != 0)
            continue;
        bool open = sl->param < 32 && (ro_params >> sl->param & 1u);
        for (int d = 0; d < 3 && open; d++)
            open = ntid[d] <= sl->max_ntid[d] && nctaid[d] <= sl->max_nctaid[d];
        if (!open) continue;
        table[2 * i] = bounds[2 * sl->param];
        table[2 * i + 1] = bounds[2 * sl->param + 1] & ~15ull;
    }
}

bool gr_gpu_judge_divergence(struct gr_rt_counters *c, uint32_t block,
                             const struct gr_rt_bar_fold *fold, uint32_t block_word) {
    uint64_t min_key = ~fold->min_key_inv;
    uint32_t verdict = gr_rt_bar_verdict(fold->max_key, min_key, 1u, block_word);
    if (verdict == GR_RT_DIV_NONE) return false;
    c->div_block = block;
    c->div_verdict = verdict;
    c->div_max_key = fold->max_key;
    c->div_min_key = min_key;
    c->div_diff_key = fold->diff_key;
    return true;
}

bool gr_gpu_divergence_finding(const struct gr_rt_counters *c, gr_dim3 grid, gr_dim3 block,
                               gr_finding *f) {
    if (c->div_blocks == 0 || c->div_verdict == GR_RT_DIV_NONE) return false;
    uint32_t tpb = block.x * block.y * block.z;
    uint32_t base = c->div_block * tpb;
    uint64_t hi = c->div_max_key, lo = c->div_min_key;
    memset(f, 0, sizeof *f);
    f->cls = GR_FINDING_BARRIER_DIVERGENCE;
    f->insn_id = f->insn_id2 = UINT32_MAX;
    gr_exec_thread where = thread_of(base, grid, block);
    char more[48] = "";
    if (c->div_blocks > 1) snprintf(more, sizeof more, " (%u blocks)", c->div_blocks);
    if (c->div_verdict == GR_RT_DIV_COUNT) {
        /* The barrier the thread with the most passed last: the one the others never reached. */
        if (gr_rt_bar_key_insn(hi) != GR_RT_BAR_NONE) f->insn_id = gr_rt_bar_key_insn(hi);
        if (gr_rt_bar_key_insn(lo) != GR_RT_BAR_NONE) f->insn_id2 = gr_rt_bar_key_insn(lo);
        f->thread = thread_of(base + gr_rt_bar_key_tid(hi), grid, block);
        f->thread2 = thread_of(base + gr_rt_bar_key_tid(lo), grid, block);
        snprintf(f->message, sizeof f->message,
                 "block (%u,%u,%u): thread (%u,%u,%u) waited at %u barrier%s for the whole block, "
                 "thread (%u,%u,%u) exited after %u%s",
                 where.block.x, where.block.y, where.block.z, f->thread.thread.x,
                 f->thread.thread.y, f->thread.thread.z, gr_rt_bar_key_count(hi),
                 gr_rt_bar_key_count(hi) == 1 ? "" : "s", f->thread2.thread.x, f->thread2.thread.y,
                 f->thread2.thread.z, gr_rt_bar_key_count(lo), more);
    } else {
        uint64_t d = c->div_diff_key;
        if (gr_rt_bar_key_insn(d) != GR_RT_BAR_NONE) f->insn_id = gr_rt_bar_key_insn(d);
        if (gr_rt_bar_key_insn(hi) != GR_RT_BAR_NONE && gr_rt_bar_key_insn(hi) != f->insn_id)
            f->insn_id2 = gr_rt_bar_key_insn(hi);
        f->thread = thread_of(base + gr_rt_bar_key_tid(d), grid, block);
        f->thread2 = thread_of(base + gr_rt_bar_key_tid(hi), grid, block);
        snprintf(f->message, sizeof f->message,
                 "threads of block (%u,%u,%u) wait at different barriers (the same number, %u, "
                 "at other instructions)%s",
                 where.block.x, where.block.y, where.block.z, gr_rt_bar_key_count(hi), more);
    }
    return true;
}

/* Where a slice of a launch sits in it: the whole launch when it fits the detector. */
typedef struct launch_geom {
    gr_dim3 grid;  /* the slice's blocks */
    gr_dim3 block;
    gr_dim3 off;   /* its first block's index in the launch */
    gr_dim3 full;  /* the launch's grid */
    bool carried;  /* the shadow holds what earlier slices of the launch left */
} launch_geom;

static gr_exec_thread slice_thread(uint32_t linear, const launch_geom *lg) {
    gr_exec_thread t = thread_of(linear, lg->grid, lg->block);
    t.block.x += lg->off.x;
    t.block.y += lg->off.y;
    t.block.z += lg->off.z;
    return t;
}

/* A race between the same two instructions with the same message is already in `out`: slices
 * of one launch report each once. */
static bool race_known(const gr_launch_result *out, const gr_rt_record *rc, const char *message,
                       bool carried) {
    for (int i = 0; i < out->nfindings; i++) {
        const gr_finding *f = &out->findings[i];
        if (f->cls == GR_FINDING_RACE && f->insn_id == rc->second_instr &&
            f->insn_id2 == rc->first_instr &&
            (carried ? strncmp(f->message, message, strlen(message)) == 0
                     : strcmp(f->message, message) == 0))
            return true;
    }
    return false;
}

/* What one slice needs besides its geometry. */
typedef struct launch_plan {
    const gr_launch *l;
    const ptx_function *fn;
    CUfunction func;
    void **params;
    CUstream stream;
    uint32_t dyn, shared_words, user_dyn;
    int registers;
    bool detect, cooperative;
} launch_plan;

/* Runs one slice and appends its findings to `out`. False on an error; a trap or fault is a
 * finding and leaves g->dead set. */
static bool run_slice(gpu_backend *g, const launch_plan *lp, const launch_geom *lg,
                      gr_launch_result *out, gr_error *err) {
    const gr_launch *l = lp->l;
    const ptx_function *fn = lp->fn;
    bool detect = lp->detect;
    gr_dim3 grid = lg->grid, block = lg->block;
    uint64_t tpb = (uint64_t)block.x * block.y * block.z;
    uint64_t nblocks = (uint64_t)grid.x * grid.y * grid.z;
    uint32_t wpb = (uint32_t)((tpb + 31) / 32);
    bool ok = true;
    if (g->opt.instrument) {
        gr_rt_params *pp = &g->staging->params, p;
        memset(&p, 0, sizeof p);
        /* offsets of the zeroed tables, each 256-byte aligned */
        size_t sizes[5] = {sizeof(gr_rt_counters), DEDUP_CAP * 8, nblocks * 4 * GR_RT_BLOCK_WORDS,
                           nblocks * wpb * 8, detect ? nblocks * sizeof(gr_rt_bar_fold) : 0};
        gpu_table *views[5] = {&g->counters, &g->dedup, &g->blocks, &g->warps, &g->bar_fold};
        size_t offs[5], zeroed = 0;
        for (int i = 0; i < 5; i++) {
            offs[i] = zeroed;
            zeroed += (sizes[i] + 255) & ~(size_t)255;
        }
        ok = table_reserve(g, &g->zeroed, zeroed, err) &&
             table_reserve(g, &g->records, RECORD_CAP * sizeof(gr_rt_record), err) &&
             (!detect || table_reserve(g, &g->threads, tpb * nblocks * sizeof(gr_rt_thread), err)) &&
             (!detect ||
              table_reserve(g, &g->bar_hist, tpb * nblocks * sizeof(gr_rt_bar_hist), err)) &&
             (!detect || table_reserve(g, &g->user_call, tpb * nblocks * 4, err)) &&
             (!detect || lg->carried || reset_shadow(g, lp->stream, err));
        for (int i = 0; ok && i < 5; i++) views[i]->ptr = g->zeroed.ptr + offs[i];
        if (ok) {
            p.arena_lo = g->arena;
            p.arena_hi = g->arena + g->arena_used;
            p.arena_shadow = g->arena_shadow;
            p.globals_lo = g->cur->globals_lo;
            p.globals_hi = g->cur->globals_shadow.ptr ? g->cur->globals_hi : g->cur->globals_lo;
            p.globals_shadow = g->cur->globals_shadow.ptr;
            p.threads = g->threads.ptr;
            p.bar_hist = g->bar_hist.ptr;
            p.user_call = g->user_call.ptr;
            p.bar_fold = g->bar_fold.ptr;
            p.blocks = g->blocks.ptr;
            p.warps = g->warps.ptr;
            p.records = g->records.ptr;
            p.dedup = g->dedup.ptr;
            p.counters = g->counters.ptr;
            p.hang = g->hang_dev;
            p.record_cap = RECORD_CAP;
            p.dedup_cap = DEDUP_CAP;
            p.threads_per_block = (uint32_t)tpb;
            p.tpb_recip = gr_fsm_reciprocal((uint32_t)tpb);
            p.ws_recip = gr_fsm_reciprocal(32u);
            p.warps_per_block = wpb;
            p.nblocks = (uint32_t)nblocks;
            p.shared_words = lp->shared_words;
            p.user_dyn_shared = lp->user_dyn;
            p.user_dyn_bytes = l->dynamic_shared;
            p.detect = detect;
            p.lockstep = l->warp_model == GR_WARP_LOCKSTEP;
            p.slice_ctaid[0] = lg->off.x, p.slice_ctaid[1] = lg->off.y, p.slice_ctaid[2] = lg->off.z;
            p.grid_nctaid[0] = lg->full.x, p.grid_nctaid[1] = lg->full.y, p.grid_nctaid[2] = lg->full.z;
            p.untracked_unchecked = g->attached;
            /* The simulator's budget counts thread-instructions; here each thread may take
             * budget/8 backward branches (a loop iteration is several instructions). */
            uint64_t budget = (l->step_budget ? l->step_budget : 200000000ull) / 8;
            if (budget < 65536) budget = 65536;
            if (budget > 0x7fffffffull) budget = 0x7fffffffull;
            launch_staging *st = g->staging;
            st->budget = (uint32_t)budget;
            st->ro_params = readonly_params(g, fn->name, l);
            param_bounds(g, l, st->ro_bounds);
            /* the proofs are about the launch's grid, which the user's code sees */
            gr_gpu_skip_bounds(&g->cur->prep, fn->name, st->ro_params, st->ro_bounds, lg->full,
                               block, st->skip);
            size_t skip_bytes = g->cur->prep.skip_slots * 2 * sizeof *st->skip;
            memset(g->hang_host, 0, sizeof *g->hang_host);
            *pp = p;
            CUstream s = lp->stream;
            CUresult cr;
            if ((cr = g->cu.MemcpyHtoDAsync(g->cur->rt_params, pp, sizeof *pp, s)) != CUDA_SUCCESS ||
                (cr = g->cu.MemcpyHtoDAsync(g->cur->rt_budget, &st->budget, 4, s)) != CUDA_SUCCESS ||
                (cr = g->cu.MemcpyHtoDAsync(g->cur->rt_ro, &st->ro_params, 4, s)) != CUDA_SUCCESS ||
                (cr = g->cu.MemcpyHtoDAsync(g->cur->rt_ro_bounds, st->ro_bounds, sizeof st->ro_bounds, s)) !=
                    CUDA_SUCCESS ||
                (skip_bytes && (cr = g->cu.MemcpyHtoDAsync(g->cur->rt_skip, st->skip, skip_bytes, s)) != CUDA_SUCCESS) ||
                (cr = g->cu.MemsetD32Async(g->zeroed.ptr, 0, zeroed / 4, s)) != CUDA_SUCCESS ||
                (g->cur->ncov && (cr = g->cu.MemsetD8Async(g->cur->rt_cov, 0, g->cur->ncov, s)) != CUDA_SUCCESS))
                ok = cu_fail(g, cr, "preparing the launch", err);
        }
    }
    if (ok) {
        g->cu.EventRecord(g->ev_start, lp->stream);
        CUresult r =
            lp->cooperative
                ? g->cu.LaunchCooperativeKernel(lp->func, grid.x, grid.y, grid.z, block.x, block.y,
                                                block.z, lp->dyn, lp->stream, lp->params)
                : g->cu.LaunchKernel(lp->func, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                     lp->dyn, lp->stream, lp->params, NULL);
        if (r == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)
            ok = gr_fail(err, GR_ERR_USAGE,
                         "kernel %s synchronizes the whole grid, so all %" PRIu64 " blocks must "
                         "be resident at once, and this GPU cannot hold them with the detector's "
                         "instrumentation (cudaErrorCooperativeLaunchTooLarge): use fewer blocks",
                         fn->name, nblocks);
        else if (r != CUDA_SUCCESS) ok = cu_fail(g, r, "launching the kernel", err);
        else g->cu.EventRecord(g->ev_end, lp->stream);
    }
    if (!ok) return false;

    uint32_t max = l->max_findings ? l->max_findings : 64;
    CUresult status;
    if (!wait_kernel(g, lp->stream, &status)) {
        g->dead = true;
        snprintf(g->dead_why, sizeof g->dead_why, "a kernel ran past the watchdog");
        out->status = GR_EXEC_HANG;
        gr_finding *f = add_finding(out, max, err);
        if (f) {
            f->cls = GR_FINDING_HANG;
            snprintf(f->message, sizeof f->message,
                     "the kernel did not finish within the watchdog (GPURACE_GPU_TIMEOUT); a wait "
                     "without a loop or diverged barriers");
        }
        return true;
    }
    if (status != CUDA_SUCCESS) {
        /* Sticky: the context is gone. Only host-mapped memory can still be read. */
        char d[256];
        gr_cu_describe(&g->cu, status, d, sizeof d);
        g->dead = true;
        snprintf(g->dead_why, sizeof g->dead_why, "%s", d);
        gr_finding *f = add_finding(out, max, err);
        if (!f) return !gr_error_failed(err);
        if (g->hang_host->flag == 1u) {
            out->status = GR_EXEC_HANG;
            f->cls = GR_FINDING_HANG;
            f->thread = slice_thread(g->hang_host->block * (uint32_t)tpb + g->hang_host->thread, lg);
            snprintf(f->message, sizeof f->message,
                     "no termination within the step budget: the loop at %s:%u kept running",
                     file_name(g->cur->m, g->hang_host->file), g->hang_host->line);
        } else {
            out->status = GR_EXEC_TRAP;
            f->cls = GR_FINDING_FAULT;
            snprintf(f->message, sizeof f->message, "the kernel faulted on the GPU: %.160s", d);
        }
        return true;
    }
    float ms = 0;
    g->cu.EventElapsedTime(&ms, g->ev_start, g->ev_end);
    g->last.kernel_ms += ms;
    g->last.registers = (uint32_t)lp->registers;
    g->have_last = true;
    if (!g->opt.instrument) return true;

    gr_rt_counters c;
    CU_TRY(g, g->cu.MemcpyDtoH(&c, g->counters.ptr, sizeof c), "reading the runtime counters", err);
    g->last.race_occurrences += c.races;
    for (uint32_t i = 0; i < GR_RT_SHARDS; i++) g->last.undecided += c.undecided_shards[i];
    g->last.tracked_bytes = g->arena_used + (g->cur->globals_hi - g->cur->globals_lo);
    g->last.shadow_bytes = (detect ? g->arena_used * 2 : 0) + g->cur->globals_shadow.size;
    g->last.shared_shadow_bytes = (uint64_t)lp->shared_words * 8u;
    if (c.shared_short)
        return gr_fail(err, GR_ERR_INTERNAL, "GPU: the shared-memory shadow was too small");
    uint32_t nrec = c.nrecords < RECORD_CAP ? c.nrecords : RECORD_CAP;
    if (nrec) {
        gr_rt_record *recs = malloc(nrec * sizeof *recs);
        if (!recs) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
        CUresult cr = g->cu.MemcpyDtoH(recs, g->records.ptr, nrec * sizeof *recs);
        if (cr != CUDA_SUCCESS) {
            free(recs);
            return cu_fail(g, cr, "reading race records", err);
        }
        for (uint32_t i = 0; i < nrec; i++) {
            const gr_rt_record *rc = &recs[i];
            char message[sizeof out->findings->message];
            snprintf(message, sizeof message, "%s%s race on %s memory: %s",
                     (rc->flags & GR_RACE_VOLATILE) ? "volatile " : "",
                     gr_race_kind_name((gr_race_kind)rc->kind), rc->space ? "shared" : "global",
                     gr_race_cause_text((gr_race_cause)rc->cause));
            if (race_known(out, rc, message, lg->carried)) continue;
            gr_finding *f = add_finding(out, max, err);
            if (!f) {
                if (gr_error_failed(err)) {
                    free(recs);
                    return false;
                }
                continue;
            }
            f->cls = GR_FINDING_RACE;
            f->insn_id = rc->second_instr;
            f->insn_id2 = rc->first_instr;
            f->thread = slice_thread(rc->second_thread, lg);
            f->thread2 = slice_thread(rc->first_thread, lg);
            f->space = rc->space ? PTX_SPACE_SHARED : PTX_SPACE_GLOBAL;
            f->address = rc->space ? rc->addr + SHARED_ADDR_BASE : rc->addr;
            f->size = 4;
            memcpy(f->message, message, sizeof message);
            if (lg->carried) {
                size_t used = strlen(f->message);
                snprintf(f->message + used, sizeof f->message - used,
                         " (the launch ran in slices: the other thread may be in an earlier "
                         "slice, whose block index is not the one shown)");
            }
        }
        free(recs);
    }
    out->findings_dropped += (int)(c.nrecords - nrec);
    if (c.oob && out->status != GR_EXEC_OUT_OF_BOUNDS) {
        out->status = GR_EXEC_OUT_OF_BOUNDS;
        gr_finding *f = add_finding(out, max, err);
        if (f) {
            f->cls = GR_FINDING_OUT_OF_BOUNDS;
            f->insn_id = c.oob_instr;
            f->thread = slice_thread(c.oob_thread, lg);
            f->address = c.oob_addr;
            f->size = c.oob_size;
            snprintf(f->message, sizeof f->message,
                     "%u-byte access at 0x%" PRIx64 " outside every buffer (%u such accesses)",
                     c.oob_size, (uint64_t)c.oob_addr, c.oob);
        } else if (gr_error_failed(err)) {
            return false;
        }
    }
    for (uint32_t i = 0; detect && i < c.div_blocks && i < GR_RT_DIV_LIST; i++) {
        /* a listed block's fold and flag word, final now that the kernel has finished */
        gr_rt_bar_fold fold;
        uint32_t bw;
        uint32_t b = c.div_list[i];
        CU_TRY(g, g->cu.MemcpyDtoH(&fold, g->bar_fold.ptr + b * sizeof fold, sizeof fold),
               "reading a block's barrier fold", err);
        CU_TRY(g, g->cu.MemcpyDtoH(&bw, g->blocks.ptr + (uint64_t)b * 4 * GR_RT_BLOCK_WORDS, 4),
               "reading a block's flags", err);
        if (gr_gpu_judge_divergence(&c, b, &fold, bw)) break;
    }
    gr_finding div;
    if (detect && out->status != GR_EXEC_BARRIER_DIVERGENCE &&
        gr_gpu_divergence_finding(&c, grid, block, &div)) {
        div.thread.block.x += lg->off.x, div.thread.block.y += lg->off.y, div.thread.block.z += lg->off.z;
        div.thread2.block.x += lg->off.x, div.thread2.block.y += lg->off.y,
            div.thread2.block.z += lg->off.z;
        if (out->status == GR_EXEC_OK) out->status = GR_EXEC_BARRIER_DIVERGENCE;
        gr_finding *f = add_finding(out, max, err);
        if (f) *f = div;
        else if (gr_error_failed(err)) return false;
    }
    if (g->cur->ncov && g->opt.coverage) {
        uint32_t ncov = g->cur->ncov;
        unsigned char *cov = malloc(ncov);
        if (!out->block_hits) {
            out->block_hits = calloc(ncov, sizeof *out->block_hits);
            out->block_first_insn = calloc(ncov, sizeof *out->block_first_insn);
        }
        if (!cov || !out->block_hits || !out->block_first_insn) {
            free(cov);
            return gr_fail(err, GR_ERR_NOMEM, "out of memory");
        }
        CUresult cr = g->cu.MemcpyDtoH(cov, g->cur->rt_cov, ncov);
        if (cr != CUDA_SUCCESS) {
            free(cov);
            return cu_fail(g, cr, "reading coverage", err);
        }
        /* Blocks are numbered in PTX order; the GPU records whether each ran, not how often. */
        for (uint32_t i = 0; i < ncov; i++) {
            if (cov[i]) out->block_hits[i] = 1u;
            out->block_first_insn[i] = i;
        }
        out->nblocks = (int)ncov;
        free(cov);
    }
    return true;
}

/* The slices of a launch of `grid` blocks of `tpb` threads, each within the detector's thread
 * numbering: along z while whole x-y planes fit, else rows along y, else runs along x. Calls
 * `each` in launch order; stops at its first false. */
static bool for_each_slice(gr_dim3 grid, gr_dim3 block, uint64_t max_threads,
                           bool (*each)(const launch_geom *, void *), void *ctx) {
    uint64_t tpb = (uint64_t)block.x * block.y * block.z;
    uint64_t per = max_threads / tpb; /* blocks per slice, >= 1 */
    launch_geom lg = {grid, block, {0, 0, 0}, grid, false};
    if ((uint64_t)grid.x * grid.y <= per) {
        uint32_t step = (uint32_t)(per / ((uint64_t)grid.x * grid.y));
        for (uint32_t z = 0; z < grid.z; z += step) {
            lg.off = (gr_dim3){0, 0, z};
            lg.grid = (gr_dim3){grid.x, grid.y, grid.z - z < step ? grid.z - z : step};
            if (!each(&lg, ctx)) return false;
        }
    } else if (grid.x <= per) {
        uint32_t step = (uint32_t)(per / grid.x);
        for (uint32_t z = 0; z < grid.z; z++)
            for (uint32_t y = 0; y < grid.y; y += step) {
                lg.off = (gr_dim3){0, y, z};
                lg.grid = (gr_dim3){grid.x, grid.y - y < step ? grid.y - y : step, 1};
                if (!each(&lg, ctx)) return false;
            }
    } else {
        uint32_t step = (uint32_t)per;
        for (uint32_t z = 0; z < grid.z; z++)
            for (uint32_t y = 0; y < grid.y; y++)
                for (uint32_t x = 0; x < grid.x; x += step) {
                    lg.off = (gr_dim3){x, y, z};
                    lg.grid = (gr_dim3){grid.x - x < step ? grid.x - x : step, 1, 1};
                    if (!each(&lg, ctx)) return false;
                }
    }
    return true;
}

typedef struct slice_run {
    gpu_backend *g;
    const launch_plan *lp;
    gr_launch_result *out;
    gr_error *err;
    bool failed;
    bool carry;       /* later slices keep the shadow the earlier ones left */
    uint32_t slices;
} slice_run;

static bool run_one_slice(const launch_geom *lg, void *ctx) {
    slice_run *sr = ctx;
    launch_geom here = *lg;
    here.carried = sr->carry && sr->slices > 0;
    sr->slices++;
    if (!run_slice(sr->g, sr->lp, &here, sr->out, sr->err)) {
        sr->failed = true;
        return false;
    }
    return !sr->g->dead; /* a trap or fault ends the launch */
}

static bool ensure_attached_shadow(gpu_backend *g, gr_error *err);

/* One launch of a kernel of g->cur on `stream`. */
static bool launch_in(gpu_backend *g, const gr_launch *l, CUstream stream, gr_launch_result *out,
                      gr_error *err) {
    memset(out, 0, sizeof *out);
    if (!check_alive(g, err)) return false;
    if (!g->cur || !g->cur->mod) return gr_fail(err, GR_ERR_USAGE, "no module loaded");
    g->cu.CtxSetCurrent(g->ctx);
    const ptx_function *fn = find_entry(g->cur->m, l->kernel, err);
    if (!fn) return false;
    gr_dim3 grid = {l->grid.x ? l->grid.x : 1, l->grid.y ? l->grid.y : 1, l->grid.z ? l->grid.z : 1};
    gr_dim3 block = {l->block.x ? l->block.x : 1, l->block.y ? l->block.y : 1,
                     l->block.z ? l->block.z : 1};
    uint64_t tpb = (uint64_t)block.x * block.y * block.z;
    uint64_t nblocks = (uint64_t)grid.x * grid.y * grid.z;
    if (tpb > 1024) return gr_fail(err, GR_ERR_USAGE, "block of %" PRIu64 " threads (at most 1024)", tpb);
    if (l->nargs != fn->nparams)
        return gr_fail(err, GR_ERR_USAGE, "kernel %s takes %d arguments, %d given", fn->name,
                       fn->nparams, l->nargs);
    bool detect = g->opt.instrument && l->detect;
    /* cooperative groups' grid sync needs the workspace only a cooperative launch provides */
    bool cooperative = ptx_function_syncs_grid(g->cur->m, fn);
    bool sliced = detect && tpb * nblocks > GR_FSM_MAX_THREADS;
    if (sliced && (!g->cur->prep.sliceable || cooperative))
        return gr_fail(err, GR_ERR_UNSUPPORTED,
                       "the shadow-FSM detector tracks at most %u threads per launch (this one has "
                       "%" PRIu64 "); use fewer blocks (e.g. a grid-stride loop)",
                       GR_FSM_MAX_THREADS, tpb * nblocks);
    struct gpu_kernel *gk = NULL;
    for (int i = 0; i < g->cur->nkernels && !gk; i++)
        if (g->cur->kernels[i].fn == fn) gk = &g->cur->kernels[i];
    struct gpu_kernel fresh = {fn, NULL, 0, 0, -1};
    if (!gk) {
        CU_TRY(g, g->cu.ModuleGetFunction(&fresh.func, g->cur->mod, fn->name), "finding the kernel", err);
        g->cu.FuncGetAttribute(&fresh.static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fresh.func);
        g->cu.FuncGetAttribute(&fresh.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, fresh.func);
        gk = g->cur->nkernels < 32 ? &g->cur->kernels[g->cur->nkernels++] : &fresh;
        *gk = fresh;
    }
    CUfunction func = gk->func;
    /* The device-side detector orders accesses by block barriers only: across a grid sync it
     * would report the phases as racing, and the driver's workspace as outside every buffer. */
    if (detect && cooperative)
        return gr_fail(err, GR_ERR_UNSUPPORTED,
                       "kernel %s synchronizes the whole grid (cooperative groups' "
                       "this_grid().sync()), which the GPU backend's race detector does not model "
                       "yet: use --backend sim",
                       fn->name);
    if (detect && g->attached && !ensure_attached_shadow(g, err)) return false;

    /* Shared memory: the kernel's, then (when detecting) the shadow of the whole window. */
    int static_smem = gk->static_smem, registers = gk->registers;
    uint32_t user_dyn = (l->dynamic_shared + 15u) & ~15u;
    uint32_t shared_words = 0, dyn = l->dynamic_shared;
    if (detect) {
        /* without shared memory of its own the kernel has no shadow, only the barrier head */
        if (static_smem > 0 || user_dyn > 0) {
            uint64_t window = (uint64_t)g->reserved_smem +
                              (((uint32_t)static_smem + 15u) & ~15u) + user_dyn + 64u;
            shared_words = (uint32_t)((window + 3) / 4);
        }
        dyn = user_dyn + shared_words * 8u + (uint32_t)sizeof(gr_rt_bar_head);
    }
    if ((uint64_t)dyn + (uint64_t)static_smem > (uint64_t)g->max_smem_optin)
        return gr_fail(err, GR_ERR_UNSUPPORTED,
                       "kernel %s needs %u bytes of shared memory%s; the GPU allows %d per block",
                       fn->name, dyn + (uint32_t)static_smem,
                       detect ? " with its shadow (2 bytes per byte)" : "", g->max_smem_optin);
    if (gk->dyn_limit != (int)dyn) {
        CUresult r = g->cu.FuncSetAttribute(func, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                            (int)dyn);
        if (r != CUDA_SUCCESS) return cu_fail(g, r, "raising the dynamic shared memory limit", err);
        gk->dyn_limit = (int)dyn;
    }

    void **params = calloc((size_t)(l->nargs ? l->nargs : 1), sizeof *params);
    out->printf_output = calloc(1, 1);
    if (!params || !out->printf_output) {
        free(params);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < l->nargs; i++) params[i] = (void *)l->args[i].data;
    launch_plan lp = {l, fn, func, params, stream, dyn, shared_words, user_dyn, registers, detect,
                      cooperative};
    memset(&g->last, 0, sizeof g->last);
    /* Slices run one after another. Where only barriers order the kernel's accesses, a conflict
     * between two blocks is a race whichever slices hold them, so later slices keep the shadow
     * the earlier ones left (no clearing, and races across slices are found); with atomics or
     * fences the detector's view of what orders blocks restarts with each slice, so the shadow
     * does too. */
    slice_run sr = {g, &lp, out, err, false, sliced && !ptx_function_may_order_blocks(g->cur->m, fn), 0};
    launch_geom whole = {grid, block, {0, 0, 0}, grid, false};
    if (sliced) for_each_slice(grid, block, GR_FSM_MAX_THREADS, run_one_slice, &sr);
    else run_one_slice(&whole, &sr);
    free(params);
    if (sr.failed) return false;
    if (sliced && !g->dead && sr.carry)
        snprintf(out->partial_note, sizeof out->partial_note,
                 "%" PRIu64 " threads checked in %u slices of at most %u, one after another: a "
                 "race with a thread of an earlier slice names that thread's block wrongly",
                 tpb * nblocks, sr.slices, GR_FSM_MAX_THREADS);
    else if (sliced && !g->dead)
        snprintf(out->partial_note, sizeof out->partial_note,
                 "%" PRIu64 " threads checked in %u slices of at most %u: it orders blocks with "
                 "atomics or fences, so races between threads of different slices are not checked",
                 tpb * nblocks, sr.slices, GR_FSM_MAX_THREADS);
    return true;
}

static bool gpu_launch(gr_backend *b, const gr_launch *l, gr_launch_result *out, gr_error *err) {
    gpu_backend *g = (gpu_backend *)b;
    g->cur = g->nmods ? g->mods[0] : NULL;
    return launch_in(g, l, NULL, out, err);
}

static void gpu_free(gr_backend *b) {
    gpu_backend *g = (gpu_backend *)b;
    if (g->ctx) {
        g->cu.CtxSetCurrent(g->ctx);
        if (!g->dead) {
            gpu_table *tables[] = {&g->threads, &g->records, &g->bar_hist, &g->user_call, &g->zeroed};
            for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
                if (tables[i]->ptr) g->cu.MemFree(tables[i]->ptr);
            for (int i = 0; i < g->nmods; i++) {
                if (g->mods[i]->globals_shadow.ptr) g->cu.MemFree(g->mods[i]->globals_shadow.ptr);
                if (g->mods[i]->mod) g->cu.ModuleUnload(g->mods[i]->mod);
            }
            if (g->arena && !g->attached) g->cu.MemFree(g->arena);
            if (g->arena_shadow) g->cu.MemFree(g->arena_shadow);
            if (g->ev_start) g->cu.EventDestroy(g->ev_start);
            if (g->ev_end) g->cu.EventDestroy(g->ev_end);
        }
        if (g->hang_host && !g->dead) g->cu.MemFreeHost(g->hang_host);
        if (g->staging && !g->dead) g->cu.MemFreeHost(g->staging);
        if (g->ctx_retained) {
            g->cu.PrimaryCtxRelease(g->dev);
            /* A sticky error poisons the device's primary context for the whole process:
             * reset it so the next backend starts clean. */
            if (g->dead) g->cu.PrimaryCtxReset(g->dev);
        }
    }
    for (int i = 0; i < g->nmods; i++) free(g->mods[i]);
    free(g->mods);
    free(g->allocs);
    gr_cu_unload(&g->cu);
    free(g);
}

/* ---- attached to a program (gpurace run --backend gpu) ---------------------------------------- */

gr_backend *gr_gpu_backend_attach(const gr_gpu_options *o, const gr_cu *cu, CUcontext ctx,
                                  gr_error *err) {
    gpu_backend *g = backend_alloc(o, err);
    if (!g) return NULL;
    g->cu = *cu;
    g->cu.lib = NULL; /* the caller's: not closed here */
    g->attached = true;
    g->ctx = ctx;
    CUresult r = g->cu.CtxSetCurrent(ctx);
    if (r == CUDA_SUCCESS) r = g->cu.CtxGetDevice(&g->dev);
    if (!device_setup(g, &r)) {
        char d[200];
        gr_cu_describe(&g->cu, r, d, sizeof d);
        gr_fail(err, GR_ERR_UNSUPPORTED, "GPU: cannot attach to the program's context: %s", d);
        gr_backend_free(&g->base);
        return NULL;
    }
    return &g->base;
}

bool gr_gpu_module_add(gr_backend *b, const ptx_module *m, int *index, gr_error *err) {
    gpu_backend *g = (gpu_backend *)b;
    if (!check_alive(g, err)) return false;
    gpu_module *gm = module_slot(g, err);
    if (!gm) return false;
    if (!module_load(g, gm, m, err)) {
        free(gm);
        g->nmods--;
        return false;
    }
    *index = g->nmods - 1;
    return true;
}

bool gr_gpu_track(gr_backend *b, uint64_t addr, uint64_t size, gr_error *err) {
    gpu_backend *g = (gpu_backend *)b;
    if (g->nallocs == g->allocs_cap) {
        size_t cap = g->allocs_cap ? g->allocs_cap * 2 : 16;
        gpu_alloc *a = realloc(g->allocs, cap * sizeof *a);
        if (!a) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
        g->allocs = a;
        g->allocs_cap = cap;
    }
    size_t at = g->nallocs;
    while (at > 0 && g->allocs[at - 1].addr > addr) at--;
    if (at > 0 && g->allocs[at - 1].addr == addr) { /* the driver reused the address */
        g->allocs[at - 1].size = size;
        return true;
    }
    memmove(&g->allocs[at + 1], &g->allocs[at], (g->nallocs - at) * sizeof *g->allocs);
    g->allocs[at] = (gpu_alloc){addr, size};
    g->nallocs++;
    return true;
}

void gr_gpu_untrack(gr_backend *b, uint64_t addr) {
    gpu_backend *g = (gpu_backend *)b;
    for (size_t i = 0; i < g->nallocs; i++)
        if (g->allocs[i].addr == addr) {
            memmove(&g->allocs[i], &g->allocs[i + 1], (g->nallocs - i - 1) * sizeof *g->allocs);
            g->nallocs--;
            return;
        }
}

/* The shadow of the span of the program's allocations, two bytes per byte, grown as needed. */
static bool ensure_attached_shadow(gpu_backend *g, gr_error *err) {
    if (g->nallocs == 0) {
        g->arena = 0;
        g->arena_used = 0;
        return true;
    }
    uint64_t lo = g->allocs[0].addr & ~255ull, hi = 0;
    for (size_t i = 0; i < g->nallocs; i++) {
        uint64_t end = (g->allocs[i].addr + g->allocs[i].size + 511) & ~511ull;
        if (end > hi) hi = end;
    }
    size_t need = (size_t)(hi - lo) * 2;
    if (need > g->shadow_cap) {
        if (g->arena_shadow) g->cu.MemFree(g->arena_shadow);
        g->arena_shadow = 0;
        g->shadow_cap = 0;
        size_t cap = need + need / 4;
        CUresult r = g->cu.MemAlloc(&g->arena_shadow, cap);
        if (r != CUDA_SUCCESS) r = g->cu.MemAlloc(&g->arena_shadow, cap = need);
        if (r != CUDA_SUCCESS) {
            char d[200];
            gr_cu_describe(&g->cu, r, d, sizeof d);
            return gr_fail(err, GR_ERR_NOMEM,
                           "GPU: the shadow of the program's device memory (%.1f MiB, twice the "
                           "%.1f MiB its allocations span) does not fit: %s",
                           (double)need / 1048576.0, (double)(hi - lo) / 1048576.0, d);
        }
        g->shadow_cap = cap;
    }
    if (lo != g->arena || hi - lo != g->arena_used) {
        /* gaps between allocations are cleared here only (reset_attached_shadow) */
        CU_TRY(g, g->cu.MemsetD8(g->arena_shadow, 0, need), "clearing the shadow", err);
    }
    g->arena = lo;
    g->arena_used = hi - lo;
    return true;
}

bool gr_gpu_launch_on(gr_backend *b, int module, const gr_launch *l, CUstream stream,
                      gr_launch_result *out, gr_error *err) {
    gpu_backend *g = (gpu_backend *)b;
    if (module < 0 || module >= g->nmods) {
        memset(out, 0, sizeof *out);
        return gr_fail(err, GR_ERR_USAGE, "no module %d loaded", module);
    }
    g->cur = g->mods[module];
    return launch_in(g, l, stream, out, err);
}

bool gr_gpu_module_global(gr_backend *b, int module, const char *name, uint64_t *addr,
                          size_t *size) {
    gpu_backend *g = (gpu_backend *)b;
    if (module < 0 || module >= g->nmods) return false;
    CUdeviceptr p;
    if (g->cu.ModuleGetGlobal(&p, size, g->mods[module]->mod, name) != CUDA_SUCCESS) return false;
    *addr = p;
    return true;
}

bool gr_gpu_is_dead(const gr_backend *b, char *why, size_t n) {
    const gpu_backend *g = (const gpu_backend *)b;
    if (g->dead && why) snprintf(why, n, "%s", g->dead_why);
    return g->dead;
}

static const gr_backend_ops gpu_ops = {
    .name = "gpu",
    .load = gpu_load,
    .alloc = gpu_alloc_fn,
    .write = gpu_write,
    .read = gpu_read,
    .launch = gpu_launch,
    .free = gpu_free,
};
