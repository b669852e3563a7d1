/* sim_backend.c — the simulator behind exec/backend.h: device memory, module loading, and
 * launch validation; execution itself is in sim_sched.c and sim_exec.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/detect.h"
#include "exec/sim/sim.h"
#include "exec/sim/sim_filter.h"
#include "exec/sim/sim_sched.h"
#include "exec/sim/sim_state.h"

enum { SIM_ALLOC_GAP = 4096, SIM_ALLOC_ALIGN = 256 };

ptx_space gr_sim_space_of(uint64_t a) {
    if (a >= SIM_GLOBAL_BASE) return PTX_SPACE_GLOBAL;
    if (a >= SIM_SHARED_BASE && a < SIM_SHARED_BASE + SIM_WINDOW_SIZE) return PTX_SPACE_SHARED;
    if (a >= SIM_LOCAL_BASE && a < SIM_LOCAL_BASE + SIM_WINDOW_SIZE) return PTX_SPACE_LOCAL;
    if (a >= SIM_CONST_BASE && a < SIM_CONST_BASE + SIM_WINDOW_SIZE) return PTX_SPACE_CONST;
    if (a >= SIM_PARAM_BASE && a < SIM_PARAM_BASE + SIM_WINDOW_SIZE) return PTX_SPACE_PARAM;
    return PTX_SPACE_NONE;
}

/* Room for one more allocation record. */
static bool reserve_alloc(sim_backend *be, gr_error *err) {
    if (be->nallocs < be->allocs_cap) return true;
    int32_t cap = be->allocs_cap ? be->allocs_cap * 2 : 16;
    sim_alloc *n = realloc(be->allocs, (size_t)cap * sizeof *n);
    if (!n) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    be->allocs = n;
    be->allocs_cap = cap;
    return true;
}

/* Index of the first allocation at or above `addr` (allocations are sorted by address, which
 * find_alloc's binary search relies on). */
static int32_t alloc_position(const sim_backend *be, uint64_t addr) {
    int32_t lo = 0, hi = be->nallocs;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (be->allocs[mid].addr < addr) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Inserts a record for [addr, addr+size) in address order; the range must be free. */
static bool insert_alloc(sim_backend *be, uint64_t addr, uint64_t size, uint8_t *host,
                         bool borrowed, gr_error *err) {
    if (addr < SIM_GLOBAL_BASE || addr + size < addr)
        return gr_fail(err, GR_ERR_USAGE,
                       "device range 0x%" PRIx64 "+%" PRIu64 " is outside the global window", addr,
                       size);
    int32_t at = alloc_position(be, addr);
    const sim_alloc *next = at < be->nallocs ? &be->allocs[at] : NULL;
    const sim_alloc *prev = at > 0 ? &be->allocs[at - 1] : NULL;
    uint64_t end = addr + (size ? size : 1);
    if ((next && next->addr < end) || (prev && prev->addr + (prev->size ? prev->size : 1) > addr))
        return gr_fail(err, GR_ERR_USAGE,
                       "device range 0x%" PRIx64 "+%" PRIu64 " overlaps another allocation", addr,
                       size);
    if (!reserve_alloc(be, err)) return false;
    memmove(&be->allocs[at + 1], &be->allocs[at], (size_t)(be->nallocs - at) * sizeof *be->allocs);
    be->allocs[at] = (sim_alloc){addr, size, host, borrowed};
    be->nallocs++;
    return true;
}

static bool sim_alloc_raw(sim_backend *be, uint64_t size, uint64_t *addr, uint8_t **host,
                          gr_error *err) {
    if (size > (1ull << 34)) return gr_fail(err, GR_ERR_USAGE, "allocation of %" PRIu64 " bytes is too large", size);
    uint8_t *h = calloc(size ? size : 1, 1);
    if (!h) return gr_fail(err, GR_ERR_NOMEM, "out of memory allocating %" PRIu64 " bytes", size);
    uint64_t at = be->next_addr;
    if (!insert_alloc(be, at, size, h, false, err)) {
        free(h);
        return false;
    }
    be->next_addr = (at + size + SIM_ALLOC_GAP + SIM_ALLOC_ALIGN - 1) /
                    SIM_ALLOC_ALIGN * SIM_ALLOC_ALIGN;
    *addr = at;
    if (host) *host = h;
    return true;
}

static bool alloc_for_decoder(void *ctx, uint64_t size, uint64_t *addr, uint8_t **host,
                              gr_error *err) {
    sim_backend *be = ctx;
    if (!be->var_alloc) return sim_alloc_raw(be, size, addr, host, err);
    if (!be->var_alloc(be->var_alloc_ctx, size, addr, host, err)) return false;
    return insert_alloc(be, *addr, size, *host, true, err);
}

void gr_sim_set_var_allocator(gr_backend *b, gr_sim_var_alloc_fn fn, void *ctx) {
    sim_backend *be = (sim_backend *)b;
    be->var_alloc = fn;
    be->var_alloc_ctx = ctx;
}

bool gr_sim_map(gr_backend *b, uint64_t addr, void *host, uint64_t size, gr_error *err) {
    if (!host) return gr_fail(err, GR_ERR_USAGE, "no host memory behind device address 0x%" PRIx64, addr);
    return insert_alloc((sim_backend *)b, addr, size, host, true, err);
}

/* Removes the record starting exactly at `addr` whose ownership is `borrowed`. */
static bool remove_alloc(sim_backend *be, uint64_t addr, bool borrowed, gr_error *err) {
    int32_t at = alloc_position(be, addr);
    if (at >= be->nallocs || be->allocs[at].addr != addr || be->allocs[at].borrowed != borrowed)
        return gr_fail(err, GR_ERR_USAGE, "no %s starts at device address 0x%" PRIx64,
                       borrowed ? "mapping" : "allocation", addr);
    if (!borrowed) free(be->allocs[at].host);
    memmove(&be->allocs[at], &be->allocs[at + 1],
            (size_t)(be->nallocs - at - 1) * sizeof *be->allocs);
    be->nallocs--;
    return true;
}

bool gr_sim_unmap(gr_backend *b, uint64_t addr, gr_error *err) {
    return remove_alloc((sim_backend *)b, addr, true, err);
}

bool gr_sim_release(gr_backend *b, uint64_t addr, gr_error *err) {
    return remove_alloc((sim_backend *)b, addr, false, err);
}

bool gr_sim_symbol_find(gr_backend *b, const char *name, gr_sim_symbol *out, gr_error *err) {
    sim_backend *be = (sim_backend *)b;
    if (!be->loaded) return gr_fail(err, GR_ERR_USAGE, "no module loaded");
    for (int32_t i = 0; i < be->prog.nvars; i++) {
        const sim_global_var *g = &be->prog.vars[i];
        if (strcmp(g->var->name, name) != 0) continue;
        if (g->space == PTX_SPACE_SHARED) { /* per block: an address, no bytes */
            *out = (gr_sim_symbol){PTX_SPACE_SHARED, SIM_SHARED_BASE + g->addr, g->size, NULL};
            return true;
        }
        if (g->space == PTX_SPACE_CONST) {
            *out = (gr_sim_symbol){PTX_SPACE_CONST, SIM_CONST_BASE + g->addr, g->size,
                                   be->prog.const_seg + g->addr};
            return true;
        }
        if (g->space != PTX_SPACE_GLOBAL) continue;
        int32_t at = alloc_position(be, g->addr);
        if (at >= be->nallocs || be->allocs[at].addr != g->addr) break;
        *out = (gr_sim_symbol){PTX_SPACE_GLOBAL, g->addr, g->size, be->allocs[at].host};
        return true;
    }
    return gr_fail(err, GR_ERR_USAGE, "the module has no variable '%s'", name);
}

static bool sim_load(gr_backend *b, const ptx_module *m, gr_error *err) {
    sim_backend *be = (sim_backend *)b;
    if (be->loaded) return gr_fail(err, GR_ERR_USAGE, "a module is already loaded");
    if (!sim_program_build(m, &be->prog, alloc_for_decoder, be, err)) return false;
    be->pc_func = calloc((size_t)be->prog.ncode + 1, sizeof(int32_t));
    if (!be->pc_func) {
        sim_program_free(&be->prog);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    for (int32_t f = 0; f < be->prog.nfuncs; f++)
        for (int32_t i = be->prog.funcs[f].entry; i < be->prog.funcs[f].end; i++) be->pc_func[i] = f;
    be->m = m;
    be->loaded = true;
    return true;
}

bool gr_sim_kernel_runnable(gr_backend *b, const char *kernel, gr_error *err) {
    sim_backend *be = (sim_backend *)b;
    if (!be->loaded) return gr_fail(err, GR_ERR_USAGE, "no module loaded");
    for (int32_t i = 0; i < be->m->nfunctions; i++)
        if (be->m->functions[i].is_entry && (!kernel || strcmp(be->m->functions[i].name, kernel) == 0))
            return sim_program_kernel_runnable(&be->prog, i, err);
    return gr_fail(err, GR_ERR_USAGE, "kernel '%s' is not in the module", kernel ? kernel : "");
}

static bool sim_alloc_op(gr_backend *b, size_t size, uint64_t *addr, gr_error *err) {
    return sim_alloc_raw((sim_backend *)b, size, addr, NULL, err);
}

static sim_alloc *range_alloc(sim_backend *be, uint64_t addr, size_t size, gr_error *err) {
    for (int32_t i = 0; i < be->nallocs; i++) {
        sim_alloc *a = &be->allocs[i];
        if (addr >= a->addr && addr + size <= a->addr + a->size) return a;
    }
    gr_fail(err, GR_ERR_USAGE, "device range 0x%" PRIx64 "+%zu is not inside one allocation", addr,
            size);
    return NULL;
}

static bool sim_write(gr_backend *b, uint64_t addr, const void *src, size_t size, gr_error *err) {
    sim_alloc *a = range_alloc((sim_backend *)b, addr, size, err);
    if (!a) return false;
    if (size) memcpy(a->host + (addr - a->addr), src, size);
    return true;
}

static bool sim_read(gr_backend *b, uint64_t addr, void *dst, size_t size, gr_error *err) {
    sim_alloc *a = range_alloc((sim_backend *)b, addr, size, err);
    if (!a) return false;
    if (size) memcpy(dst, a->host + (addr - a->addr), size);
    return true;
}

static void sim_free(gr_backend *b) {
    sim_backend *be = (sim_backend *)b;
    for (int32_t i = 0; i < be->nallocs; i++)
        if (!be->allocs[i].borrowed) free(be->allocs[i].host);
    free(be->allocs);
    free(be->pc_func);
    if (be->loaded) sim_program_free(&be->prog);
    free(be);
}

static uint32_t dim_or_one(uint32_t v) { return v ? v : 1; }

/* A grid-synchronizing kernel: every block must be resident at once, on the simulator and on
 * a plausible GPU (see sim.h), and gets its grid-sync workspace. */
static bool cooperative_fits(sim_run *r, uint64_t shared_per_block, gr_error *err) {
    uint64_t nb = (uint64_t)r->grid.x * r->grid.y * r->grid.z, tpb = r->nthreads;
    uint64_t per_sm = GR_SIM_DEVICE_BLOCKS_PER_SM;
    if (GR_SIM_DEVICE_THREADS_PER_SM / tpb < per_sm) per_sm = GR_SIM_DEVICE_THREADS_PER_SM / tpb;
    uint64_t smem = shared_per_block + GR_SIM_RESERVED_SMEM;
    if (GR_SIM_DEVICE_SHARED_PER_SM / smem < per_sm) per_sm = GR_SIM_DEVICE_SHARED_PER_SM / smem;
    uint64_t most = per_sm * GR_SIM_DEVICE_SMS;
    if (nb > most)
        return gr_fail(err, GR_ERR_USAGE,
                       "kernel %s synchronizes the whole grid, so all %" PRIu64 " blocks must be "
                       "resident at once; an H100-class GPU holds at most %" PRIu64 " blocks of %"
                       PRIu64 " threads and %" PRIu64 " bytes of shared memory "
                       "(cudaLaunchCooperativeKernel would fail with "
                       "cudaErrorCooperativeLaunchTooLarge)",
                       r->kernel->fn->name, nb, most, tpb, shared_per_block);
    if (nb * tpb > GR_SIM_MAX_COOPERATIVE_THREADS)
        return gr_fail(err, GR_ERR_UNSUPPORTED,
                       "kernel %s synchronizes the whole grid: the simulator keeps at most %d "
                       "threads resident, this launch has %" PRIu64,
                       r->kernel->fn->name, GR_SIM_MAX_COOPERATIVE_THREADS, nb * tpb);
    sim_backend *be = r->be;
    if (!be->grid_ws && !sim_alloc_raw(be, 64, &be->grid_ws, &be->grid_ws_host, err)) return false;
    memset(be->grid_ws_host, 0, 64); /* the barrier word starts at zero for every launch */
    r->grid_ws = be->grid_ws;
    return true;
}

/* Checks the launch against the kernel and lays out its parameters. */
static bool validate(sim_run *r, const gr_launch *L, gr_error *err) {
    const sim_program *p = r->prog;
    const ptx_module *m = p->module;
    int32_t ki = -1, nentries = 0;
    for (int32_t i = 0; i < m->nfunctions; i++) {
        if (!m->functions[i].is_entry) continue;
        nentries++;
        if (L->kernel ? strcmp(m->functions[i].name, L->kernel) == 0 : ki < 0) ki = i;
    }
    if (ki < 0) return gr_fail(err, GR_ERR_USAGE, "kernel '%s' is not in the module", L->kernel ? L->kernel : "");
    if (!L->kernel && nentries > 1)
        return gr_fail(err, GR_ERR_USAGE, "the module has %d kernels: name one", nentries);
    const ptx_function *fn = &m->functions[ki];
    if (!sim_program_kernel_runnable(p, ki, err)) return false;
    r->kernel_index = ki;
    r->kernel = &p->funcs[ki];
    r->grid = (gr_dim3){dim_or_one(L->grid.x), dim_or_one(L->grid.y), dim_or_one(L->grid.z)};
    r->block = (gr_dim3){dim_or_one(L->block.x), dim_or_one(L->block.y), dim_or_one(L->block.z)};
    uint64_t nt = (uint64_t)r->block.x * r->block.y * r->block.z;
    if (r->block.x > 1024 || r->block.y > 1024 || r->block.z > 64 || nt > 1024)
        return gr_fail(err, GR_ERR_USAGE,
                       "block (%u,%u,%u) has %" PRIu64 " threads: at most 1024 (x,y <= 1024, z <= 64)",
                       r->block.x, r->block.y, r->block.z, nt);
    if (fn->reqntid[0] && (r->block.x != fn->reqntid[0] || r->block.y != dim_or_one(fn->reqntid[1]) ||
                           r->block.z != dim_or_one(fn->reqntid[2])))
        return gr_fail(err, GR_ERR_USAGE, "kernel %s requires a block of (%u,%u,%u) threads (.reqntid)",
                       fn->name, fn->reqntid[0], dim_or_one(fn->reqntid[1]), dim_or_one(fn->reqntid[2]));
    if (fn->maxntid[0] && nt > (uint64_t)fn->maxntid[0] * dim_or_one(fn->maxntid[1]) * dim_or_one(fn->maxntid[2]))
        return gr_fail(err, GR_ERR_USAGE, "kernel %s allows at most %u threads per block (.maxntid)",
                       fn->name, fn->maxntid[0] * dim_or_one(fn->maxntid[1]) * dim_or_one(fn->maxntid[2]));
    uint64_t nb = (uint64_t)r->grid.x * r->grid.y * r->grid.z;
    if (r->grid.x > 2147483647u || r->grid.y > 65535 || r->grid.z > 65535 || nb > (1u << 24))
        return gr_fail(err, GR_ERR_USAGE, "grid (%u,%u,%u) is too large for the simulator", r->grid.x,
                       r->grid.y, r->grid.z);
    if (L->dynamic_shared && !p->uses_dynamic_shared) {
        /* allowed (CUDA accepts it), but nothing can use it */
    }
    uint64_t shared = (uint64_t)p->static_shared_bytes + L->dynamic_shared;
    if (shared > GR_SIM_MAX_SHARED_BYTES)
        return gr_fail(err, GR_ERR_USAGE,
                       "%" PRIu64 " bytes of shared memory per block (%u static + %u dynamic): the "
                       "limit is %d",
                       shared, p->static_shared_bytes, L->dynamic_shared, GR_SIM_MAX_SHARED_BYTES);
    r->nthreads = (uint32_t)nt;
    r->nwarps_per_block = (r->nthreads + SIM_LANES - 1) / SIM_LANES;
    r->nblocks_total = (uint32_t)nb;
    r->shared_size = p->static_shared + L->dynamic_shared; /* the layout, gaps included */
    r->dyn_shared = L->dynamic_shared;
    r->shared_alloc = r->shared_size;
    if (p->uses_reserved_smem) {
        /* past a guard gap, so an overrun of the user's shared memory is still out of bounds */
        r->reserved_smem = (r->shared_size + 255u) / 128u * 128u + 128u;
        r->shared_alloc = r->reserved_smem + GR_SIM_RESERVED_SMEM;
    }
    if (p->uses_grid_workspace && !cooperative_fits(r, shared, err)) return false;
    if (L->nargs != fn->nparams)
        return gr_fail(err, GR_ERR_USAGE, "kernel %s takes %d argument%s, the launch gives %d",
                       fn->name, fn->nparams, fn->nparams == 1 ? "" : "s", L->nargs);
    uint64_t size = 0;
    for (int i = 0; i < fn->nparams; i++) {
        uint64_t a = sim_var_align(&fn->params[i]);
        size = (size + a - 1) / a * a + sim_var_size(&fn->params[i]);
    }
    r->kparams_size = (uint32_t)size;
    r->kparams = calloc(size + 8, 1);
    if (!r->kparams) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    uint64_t off = 0;
    for (int i = 0; i < fn->nparams; i++) {
        const ptx_var *v = &fn->params[i];
        uint64_t a = sim_var_align(v), s = sim_var_size(v);
        off = (off + a - 1) / a * a;
        if (!L->args[i].data || L->args[i].size != s)
            return gr_fail(err, GR_ERR_USAGE,
                           "argument %d (%s) of kernel %s must be %" PRIu64 " bytes, got %zu", i,
                           v->name, fn->name, s, L->args[i].data ? L->args[i].size : 0);
        memcpy(r->kparams + off, L->args[i].data, s);
        off += s;
    }
    return true;
}

/* Detector hooks that stop the launch once the detector rejected an event (the happens-before
 * detector at its memory limit or history budget): the rest of the run could not change the
 * outcome. */
typedef struct stopping_hooks {
    gr_exec_hooks hooks;
    const gr_exec_hooks *inner;
    gr_exec_detector *det;
    sim_run *r;
} stopping_hooks;

static void stopping_access(void *ctx, const gr_access_event *ev) {
    stopping_hooks *s = ctx;
    s->inner->access(s->inner->ctx, ev);
    if (gr_exec_detector_failed(s->det)) s->r->stop = true;
}

static void stopping_sync(void *ctx, const gr_sync_event *ev) {
    stopping_hooks *s = ctx;
    s->inner->sync(s->inner->ctx, ev);
    if (gr_exec_detector_failed(s->det)) s->r->stop = true;
}

static void stopping_begin(void *ctx, gr_dim3 grid, gr_dim3 block) {
    stopping_hooks *s = ctx;
    s->inner->begin(s->inner->ctx, grid, block);
}

/* One execution of the launch with the detector `opt` describes (when L->detect). */
static bool run_once(sim_backend *be, const gr_launch *L, const gr_detector_options *opt,
                     gr_launch_result *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    sim_run *r = calloc(1, sizeof *r);
    if (!r) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    r->be = be;
    r->prog = &be->prog;
    r->launch = L;
    r->res = out;
    r->err = err;
    r->max_findings = L->max_findings ? L->max_findings : 64;
    r->budget = L->step_budget ? L->step_budget : GR_SIM_DEFAULT_BUDGET;
    r->rng = L->schedule.seed ^ 0x5deece66dull;
    bool ok = validate(r, L, err);
    if (ok && !L->step_budget) {
        /* the default scales with the launch: a big terminating launch is no hang */
        uint64_t threads = (uint64_t)r->nthreads * r->nblocks_total;
        if (threads > GR_SIM_DEFAULT_BUDGET / GR_SIM_STEPS_PER_THREAD)
            r->budget = threads > UINT64_MAX / GR_SIM_STEPS_PER_THREAD
                            ? UINT64_MAX
                            : threads * GR_SIM_STEPS_PER_THREAD;
    }
    if (ok) {
        out->nblocks = be->prog.nblocks;
        out->block_hits = calloc((size_t)be->prog.nblocks + 1, sizeof(uint64_t));
        out->block_first_insn = calloc((size_t)be->prog.nblocks + 1, sizeof(uint32_t));
        out->ncmps = be->prog.ncmps;
        out->cmp_closest = malloc((size_t)be->prog.ncmps + 1);
        out->cmp_insn = calloc((size_t)be->prog.ncmps + 1, sizeof(uint32_t));
        if (!out->block_hits || !out->block_first_insn || !out->cmp_closest || !out->cmp_insn) {
            ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
        } else {
            memcpy(out->block_first_insn, be->prog.block_first_insn,
                   (size_t)be->prog.nblocks * sizeof(uint32_t));
            memset(out->cmp_closest, 0xff, (size_t)be->prog.ncmps + 1); /* never executed */
            memcpy(out->cmp_insn, be->prog.cmp_insn, (size_t)be->prog.ncmps * sizeof(uint32_t));
        }
    }
    if (ok && !sim_schedule_prepare(r)) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory preparing the launch");
    if (ok && !sim_filter_prepare(r, L)) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory preparing the launch");
    gr_exec_detector *det = NULL;
    gr_launch with_detector;
    stopping_hooks stopping;
    if (ok && L->detect) {
        det = gr_exec_detector_new(opt, r->grid, r->block, L->hooks, err);
        if (!det) ok = false;
        with_detector = *L;
        with_detector.hooks = det ? gr_exec_detector_hooks(det) : NULL;
        if (det && opt->kind == GR_DETECTOR_HB) {
            stopping = (stopping_hooks){{&stopping, stopping_access, stopping_sync, stopping_begin},
                                        with_detector.hooks, det, r};
            with_detector.hooks = &stopping.hooks;
        }
        r->launch = &with_detector;
    }
    if (ok) {
        const gr_exec_hooks *h = r->launch->hooks;
        if (h && h->begin) h->begin(h->ctx, r->grid, r->block);
        sim_schedule_run(r);
        if (r->failed) ok = gr_fail(err, GR_ERR_INTERNAL, "the simulator failed (out of memory or an internal error)");
    }
    if (ok && det) ok = gr_exec_detector_finish(det, out, r->max_findings, err);
    gr_exec_detector_free(det);
    if (ok) {
        out->printf_output = r->printf_out.data ? gr_strbuf_take(&r->printf_out) : calloc(1, 1);
        out->printf_len = out->printf_output ? strlen(out->printf_output) : 0;
        if (!out->printf_output) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    gr_strbuf_free(&r->printf_out);
    sim_filter_release(r);
    sim_schedule_free(r);
    free(r->kparams);
    free(r);
    if (!ok) gr_launch_result_free(out);
    return ok;
}

/* Device memory before a launch, so that a confirming re-run starts from the same state. */
typedef struct memory_snapshot {
    uint8_t **bytes; /* one copy per allocation */
    int32_t n;
} memory_snapshot;

static bool snapshot_take(const sim_backend *be, memory_snapshot *s) {
    s->n = 0;
    s->bytes = calloc((size_t)be->nallocs + 1, sizeof *s->bytes);
    if (!s->bytes) return false;
    for (; s->n < be->nallocs; s->n++) {
        const sim_alloc *a = &be->allocs[s->n];
        s->bytes[s->n] = malloc(a->size ? a->size : 1);
        if (!s->bytes[s->n]) return false;
        memcpy(s->bytes[s->n], a->host, a->size);
    }
    return true;
}

/* Puts the snapshot's contents back into device memory. Contents move, not pointers: a
 * borrowed mapping (the CUDA runtime's memory under `gpurace run`) belongs to its owner. */
static void snapshot_restore(sim_backend *be, const memory_snapshot *s) {
    for (int32_t i = 0; i < s->n && i < be->nallocs; i++)
        memcpy(be->allocs[i].host, s->bytes[i], be->allocs[i].size);
}

static void snapshot_free(memory_snapshot *s) {
    for (int32_t i = 0; s->bytes && i < s->n; i++) free(s->bytes[i]);
    free(s->bytes);
    s->bytes = NULL;
}

/* The default detector: the FSM, confirmed by happens-before where it reports a race. */
static bool confirms(const gr_launch *L) {
    return L->detect && L->detector == GR_DETECTOR_FSM && L->confirm == GR_CONFIRM_AUTO;
}

static bool has_race_finding(const gr_launch_result *r) {
    for (int i = 0; i < r->nfindings; i++)
        if (r->findings[i].cls == GR_FINDING_RACE) return true;
    return r->findings_dropped > 0;
}

static gr_detector_options detector_options(const gr_launch *L, gr_detector_kind kind) {
    uint64_t mb = L->memory_limit_mb ? L->memory_limit_mb : GR_DEFAULT_MEMORY_LIMIT_MB;
    return (gr_detector_options){.kind = kind, .warp_model = L->warp_model,
                                 .memory_limit = (size_t)(mb << 20)};
}

/* One launch under the detector `L` asks for, from device memory equal to `before` (the
 * launch's memory, kept by the caller). With the default detector: the FSM first; when it
 * reports a race or leaves an access undecided, the same launch again from `before` under
 * happens-before, tracking the granules the FSM flagged (see gr_confirm_mode). The schedule is a
 * pure function of the launch, so both runs execute the same interleaving and leave the same
 * memory. When the second run fails (its memory limit or history budget), the FSM's result and
 * memory stand, marked as not confirmed. */
static bool launch_from(sim_backend *be, const gr_launch *L, const memory_snapshot *before,
                        gr_launch_result *out, gr_error *err) {
    if (!confirms(L)) {
        gr_detector_options opt = detector_options(L, L->detector);
        return run_once(be, L, &opt, out, err);
    }
    gr_granule_set flagged = GR_GRANULE_SET_INIT;
    gr_detector_options fsm = detector_options(L, GR_DETECTOR_FSM);
    fsm.flagged = &flagged;
    bool ok = run_once(be, L, &fsm, out, err);
    if (ok && (out->undecided > 0 || has_race_finding(out))) {
        memory_snapshot after_fsm = {0};
        if (!snapshot_take(be, &after_fsm)) {
            snapshot_free(&after_fsm);
            gr_granule_set_free(&flagged);
            gr_launch_result_free(out);
            return gr_fail(err, GR_ERR_NOMEM, "out of memory saving device memory after a launch");
        }
        snapshot_restore(be, before);
        gr_detector_options hb = detector_options(L, GR_DETECTOR_HB);
        hb.track_only = &flagged;
        hb.history_budget = GR_CONFIRM_HISTORY_BUDGET;
        gr_launch_result confirmed;
        gr_error why = GR_ERROR_INIT;
        if (run_once(be, L, &hb, &confirmed, &why)) {
            confirmed.undecided = out->undecided;
            confirmed.confirmed_by_hb = true;
            gr_launch_result_free(out);
            *out = confirmed;
        } else {
            snapshot_restore(be, &after_fsm);
            out->confirm_skipped = true;
            snprintf(out->confirm_note, sizeof out->confirm_note, "%s",
                     why.message ? why.message : "the confirming run failed");
        }
        gr_error_clear(&why);
        snapshot_free(&after_fsm);
    }
    gr_granule_set_free(&flagged);
    return ok;
}

/* Schedules that may starve a spinning thread forever: real GPUs guarantee resident warps
 * progress (independent thread scheduling), so a hang under them proves nothing by itself. */
static bool schedule_may_starve(const gr_schedule *s) {
    return s->kind == GR_SCHED_PCT || s->kind == GR_SCHED_SERIALIZED;
}

static bool same_finding(const gr_finding *a, const gr_finding *b) {
    return a->cls == b->cls && a->insn_id == b->insn_id && a->insn_id2 == b->insn_id2;
}

/* The races of a starved run happened on a valid interleaving (a prefix the fair run may not
 * take): they join the fair run's findings, as many as max_findings allows. */
static bool keep_starved_races(gr_launch_result *fair, const gr_launch_result *starved,
                               int max_findings) {
    for (int i = 0; i < starved->nfindings; i++) {
        const gr_finding *f = &starved->findings[i];
        if (f->cls != GR_FINDING_RACE) continue;
        bool seen = false;
        for (int j = 0; j < fair->nfindings && !seen; j++) seen = same_finding(f, &fair->findings[j]);
        if (seen) continue;
        if (fair->nfindings >= max_findings) {
            fair->findings_dropped++;
            continue;
        }
        gr_finding *grown = realloc(fair->findings, ((size_t)fair->nfindings + 1) * sizeof *grown);
        if (!grown) return false;
        fair->findings = grown;
        fair->findings[fair->nfindings++] = *f;
    }
    return true;
}

/* The launch's memory is kept (one copy) when a second run may need it: the confirmation of the
 * default detector, and a launch under a schedule that may starve a spinning thread (PCT,
 * serialized): when that one runs out of steps it runs again from the same memory under the fair
 * round-robin schedule, since a hang is a finding only when the kernel cannot terminate under a
 * fair schedule. */
static bool sim_launch(gr_backend *b, const gr_launch *L, gr_launch_result *out, gr_error *err) {
    sim_backend *be = (sim_backend *)b;
    memset(out, 0, sizeof *out);
    if (!be->loaded) return gr_fail(err, GR_ERR_USAGE, "no module loaded");
    bool may_starve = schedule_may_starve(&L->schedule);
    if (!may_starve && !confirms(L)) return launch_from(be, L, NULL, out, err);
    memory_snapshot before = {0};
    if (!snapshot_take(be, &before)) {
        snapshot_free(&before);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory saving device memory before a launch");
    }
    bool ok = launch_from(be, L, &before, out, err);
    if (ok && may_starve && out->status == GR_EXEC_HANG) {
        snapshot_restore(be, &before); /* device memory as the launch found it */
        gr_launch fair_launch = *L;
        memset(&fair_launch.schedule, 0, sizeof fair_launch.schedule);
        gr_launch_result fair;
        ok = launch_from(be, &fair_launch, &before, &fair, err);
        if (ok && fair.status != GR_EXEC_HANG) {
            if (!keep_starved_races(&fair, out, L->max_findings ? L->max_findings : 64)) {
                gr_launch_result_free(&fair);
                snapshot_free(&before);
                return gr_fail(err, GR_ERR_NOMEM, "out of memory");
            }
            char sched[64];
            gr_schedule_format(&L->schedule, sched, sizeof sched);
            snprintf(fair.starved_note, sizeof fair.starved_note,
                     "schedule %s starved a spinning thread; the fair schedule terminated, so no "
                     "hang is reported",
                     sched);
            gr_launch_result_free(out);
            *out = fair;
        } else if (ok) {
            gr_launch_result_free(&fair); /* a hang under both: the starved run's report stands */
        }
    }
    snapshot_free(&before);
    return ok;
}

static const gr_backend_ops sim_ops = {"sim", sim_load, sim_alloc_op, sim_write, sim_read,
                                       sim_launch, sim_free};

gr_backend *gr_sim_backend_new(gr_error *err) {
    sim_backend *be = calloc(1, sizeof *be);
    if (!be) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        return NULL;
    }
    be->base.ops = &sim_ops;
    be->next_addr = SIM_GLOBAL_BASE;
    return &be->base;
}
