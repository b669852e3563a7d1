/* runner.c — gr_input -> backend launch (see runner.h). */
#include "search/runner.h"

#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "exec/gpu/gpu.h"

/* A device allocation kept for reuse by a later launch that needs the same size. */
typedef struct runner_alloc {
    uint64_t addr, bytes;
    bool in_use;
} runner_alloc;

enum { RUNNER_MAX_ALLOCS = 2048 };

struct gr_runner {
    const ptx_module *module;
    const gr_kernel_sig *kernel;
    gr_runner_options opt;
    gr_backend *backend;
    bool is_gpu;
    bool fresh_each_launch; /* module variables would carry state between launches */
    char note[256];
    runner_alloc *allocs;
    int nallocs;
    uint64_t *addrs; /* per gr_input buffer, last launch */
    int naddrs;
    uint8_t *zeros;
    size_t zeros_len;
};

static bool open_backend(gr_runner *r, gr_error *err) {
    if (r->backend) gr_backend_free(r->backend);
    r->backend = NULL;
    r->nallocs = 0;
    r->note[0] = '\0';
    if (r->opt.open_backend) {
        r->backend = r->opt.open_backend(r->opt.open_backend_ctx, err);
        r->is_gpu = false;
    } else {
        r->backend = gr_backend_open_shared(r->opt.backend ? r->opt.backend : "sim",
                                            r->opt.gpu_share, &r->is_gpu, r->note,
                                            sizeof r->note, err);
    }
    if (!r->backend) return false;
    return gr_backend_load(r->backend, r->module, err);
}

gr_runner *gr_runner_new(const ptx_module *m, const gr_kernel_sig *k, const gr_runner_options *o,
                         gr_error *err) {
    gr_runner *r = calloc(1, sizeof *r);
    if (!r) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        return NULL;
    }
    r->module = m;
    r->kernel = k;
    if (o) r->opt = *o;
    for (int i = 0; i < m->nvars; i++)
        if (m->vars[i].space == PTX_SPACE_GLOBAL) r->fresh_each_launch = true;
    r->allocs = calloc(RUNNER_MAX_ALLOCS, sizeof *r->allocs);
    if (!r->allocs) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        free(r);
        return NULL;
    }
    if (!open_backend(r, err)) {
        gr_runner_free(r);
        return NULL;
    }
    return r;
}

void gr_runner_free(gr_runner *r) {
    if (!r) return;
    if (r->backend) gr_backend_free(r->backend);
    free(r->allocs);
    free(r->addrs);
    free(r->zeros);
    free(r);
}

const char *gr_runner_backend_name(const gr_runner *r) { return r->is_gpu ? "gpu" : "sim"; }
const char *gr_runner_backend_note(const gr_runner *r) { return r->note; }

bool gr_runner_deterministic(const gr_runner *r) {
    if (r->opt.open_backend) return r->opt.open_backend_deterministic;
    return !r->is_gpu;
}

bool gr_runner_read_buffer(gr_runner *r, int index, void *dst, size_t bytes, gr_error *err) {
    if (index < 0 || index >= r->naddrs || !r->backend)
        return gr_fail(err, GR_ERR_INTERNAL, "no buffer %d in the last launch", index);
    return bytes == 0 || gr_backend_read(r->backend, r->addrs[index], dst, bytes, err);
}

const uint64_t *gr_runner_buffer_addresses(const gr_runner *r, int *n) {
    *n = r->naddrs;
    return r->addrs;
}

/* A device buffer of exactly `bytes` bytes holding `data` (NULL: zeros). */
static bool place_buffer(gr_runner *r, const uint8_t *data, uint64_t bytes, uint64_t *addr,
                         gr_error *err) {
    runner_alloc *slot = NULL;
    for (int i = 0; i < r->nallocs && !slot; i++)
        if (!r->allocs[i].in_use && r->allocs[i].bytes == bytes) slot = &r->allocs[i];
    if (!slot) {
        if (r->nallocs == RUNNER_MAX_ALLOCS)
            return gr_fail(err, GR_ERR_INTERNAL, "too many device buffers in one launch");
        slot = &r->allocs[r->nallocs];
        if (!gr_backend_alloc(r->backend, (size_t)bytes, &slot->addr, err)) return false;
        slot->bytes = bytes;
        r->nallocs++;
    }
    slot->in_use = true;
    *addr = slot->addr;
    if (bytes == 0) return true;
    if (data) return gr_backend_write(r->backend, slot->addr, data, (size_t)bytes, err);
    if (r->zeros_len < bytes) {
        uint8_t *z = realloc(r->zeros, (size_t)bytes);
        if (!z) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
        memset(z, 0, (size_t)bytes);
        r->zeros = z;
        r->zeros_len = (size_t)bytes;
    }
    return gr_backend_write(r->backend, slot->addr, r->zeros, (size_t)bytes, err);
}

bool gr_runner_run(gr_runner *r, const gr_input *in, gr_launch_result *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    if (in->nargs != r->kernel->nparams)
        return gr_fail(err, GR_ERR_INPUT, "the input has %d arguments, kernel %s takes %d",
                       in->nargs, r->kernel->name, r->kernel->nparams);
    /* Rebuild when the reuse pool has grown too large or module variables must be reset. */
    if ((r->fresh_each_launch || r->nallocs + in->nbuffers >= RUNNER_MAX_ALLOCS) &&
        !open_backend(r, err))
        return false;
    for (int i = 0; i < r->nallocs; i++) r->allocs[i].in_use = false;
    if (r->naddrs < in->nbuffers) {
        uint64_t *a = realloc(r->addrs, (size_t)in->nbuffers * sizeof *a);
        if (!a) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
        r->addrs = a;
    }
    r->naddrs = in->nbuffers;
    for (int i = 0; i < in->nbuffers; i++)
        if (!place_buffer(r, in->buffers[i].data, in->buffers[i].bytes, &r->addrs[i], err))
            return false;
    int n = in->nargs;
    gr_launch_arg *args = calloc((size_t)n + 1, sizeof *args);
    uint8_t *bytes = NULL;
    size_t total = 0;
    for (int i = 0; i < n; i++) total += (size_t)r->kernel->params[i].size + 16;
    bytes = calloc(total + 16, 1);
    if (!args || !bytes) {
        free(args);
        free(bytes);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        size_t want = (size_t)r->kernel->params[i].size;
        size_t cap = want + 16;
        size_t got = gr_input_arg_bytes(in, i, r->addrs, bytes + off, cap);
        if (got == 0 || got > want) {
            free(args);
            free(bytes);
            return gr_fail(err, GR_ERR_INPUT, "argument %d (%s) does not fit parameter of %zu bytes",
                           i, r->kernel->params[i].name, want);
        }
        args[i].data = bytes + off;
        args[i].size = want; /* zero-extended: scalars narrower than the parameter */
        off += cap;
    }
    gr_launch L;
    memset(&L, 0, sizeof L);
    L.kernel = r->kernel->ptx_name;
    L.grid = (gr_dim3){in->grid[0], in->grid[1], in->grid[2]};
    L.block = (gr_dim3){in->block[0], in->block[1], in->block[2]};
    L.dynamic_shared = in->shared_bytes;
    L.args = args;
    L.nargs = n;
    L.schedule.kind = (gr_schedule_kind)in->schedule.kind;
    L.schedule.seed = in->schedule.seed;
    L.schedule.quantum = in->schedule.quantum;
    L.schedule.depth = in->schedule.depth;
    L.step_budget = r->opt.step_budget;
    if (!L.step_budget && r->opt.step_budget_per_thread) {
        uint64_t t = gr_input_threads(in);
        uint64_t b = t > UINT64_MAX / r->opt.step_budget_per_thread ? UINT64_MAX : t * r->opt.step_budget_per_thread;
        L.step_budget = b < 1000000 ? 1000000 : b;
    }
    L.detect = true;
    L.detector = r->opt.detector;
    L.confirm = r->opt.confirm;
    L.warp_model = r->opt.warp_model;
    L.memory_limit_mb = r->opt.memory_limit_mb;
    bool ok = gr_backend_launch(r->backend, &L, out, err);
    free(args);
    free(bytes);
    return ok;
}

/* ---- signatures ------------------------------------------------------------------------------ */

void gr_search_race_kind(const gr_finding *f, char *buf, size_t n) {
    if (n == 0) return;
    buf[0] = '\0';
    if (f->cls != GR_FINDING_RACE) return;
    const char *sp = strstr(f->message, " race");
    if (!sp) return;
    size_t len = (size_t)(sp - f->message);
    if (len >= n) len = n - 1;
    memcpy(buf, f->message, len);
    buf[len] = '\0';
}

uint64_t gr_search_signature(const gr_finding *f) {
    uint32_t a = f->insn_id, b = f->insn_id2;
    if (f->cls == GR_FINDING_RACE && b < a) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    uint64_t h = gr_hash64(&f->cls, sizeof f->cls);
    h = gr_hash_bytes(h, &a, sizeof a);
    if (f->cls == GR_FINDING_RACE) {
        char kind[64];
        gr_search_race_kind(f, kind, sizeof kind);
        h = gr_hash_bytes(h, &b, sizeof b);
        h = gr_hash_bytes(h, kind, strlen(kind));
    }
    return h ? h : 1;
}

static uint64_t linear_thread(const gr_input *in, const gr_exec_thread *t) {
    return t->thread.x + (uint64_t)t->thread.y * in->block[0] +
           (uint64_t)t->thread.z * in->block[0] * in->block[1];
}

gr_search_relation gr_search_relation_of(const gr_input *in, const gr_finding *f) {
    if (f->cls != GR_FINDING_RACE) return GR_SEARCH_REL_NONE;
    const gr_exec_thread *a = &f->thread, *b = &f->thread2;
    if (a->block.x != b->block.x || a->block.y != b->block.y || a->block.z != b->block.z)
        return GR_SEARCH_REL_OTHER_BLOCK;
    uint64_t ta = linear_thread(in, a), tb = linear_thread(in, b);
    if (ta == tb) return GR_SEARCH_REL_SAME_THREAD;
    return ta / 32 == tb / 32 ? GR_SEARCH_REL_SAME_WARP : GR_SEARCH_REL_OTHER_WARP;
}

bool gr_search_result_has(const gr_input *in, const gr_launch_result *res, uint64_t signature,
                          gr_search_relation rel) {
    for (int i = 0; i < res->nfindings; i++) {
        if (gr_search_signature(&res->findings[i]) != signature) continue;
        if (rel == GR_SEARCH_REL_NONE || gr_search_relation_of(in, &res->findings[i]) == rel)
            return true;
    }
    return false;
}
