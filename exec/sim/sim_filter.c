/* sim_filter.c — the access filter at decode, launch and access time (sim_filter.h). */
#include "exec/sim/sim_filter.h"

#include <stdlib.h>
#include <string.h>

#include "jit/analysis/affine.h"
#include "jit/analysis/readonly.h"

enum { SIM_FILTER_RANGES = 4 }; /* buffers a read-only load's address may derive from */

/* Where a site's accesses may skip the detector in this launch: inside one of n ranges. */
typedef struct sim_filter_range {
    uint8_t n;  /* 0: nowhere (a condition failed, or another kernel's site) */
    bool any;   /* anywhere: a quiet shared access */
    uint64_t lo[SIM_FILTER_RANGES], len[SIM_FILTER_RANGES];
} sim_filter_range;

struct sim_filter_run {
    sim_filter_range *sites; /* per site of the module */
    const gr_exec_hooks *user;
};

bool sim_filter_mark(sim_program *p, const ptx_module *m, gr_error *err) {
    if (!gr_access_filter_find(m, &p->filter, err)) return false;
    for (int32_t i = 0; i < p->ncode; i++) {
        sim_insn *in = &p->code[i];
        if (in->h != H_LD && in->h != H_ST && in->h != H_ATOM && in->h != H_RED) continue;
        const gr_filter_site *s = gr_access_filter_site(&p->filter, in->id);
        if (s) in->filter_site = (int32_t)(s - p->filter.sites) + 1;
    }
    return true;
}

bool sim_provenance_mark(sim_program *p, const ptx_module *m, gr_error *err) {
    int32_t *base = calloc((size_t)m->ninsns + 1, sizeof *base);
    if (!base) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    for (int32_t fi = 0; fi < m->nfunctions; fi++) {
        const ptx_function *fn = &m->functions[fi];
        if (!fn->is_entry || !fn->has_body) continue;
        gr_affine_kernel *ak = gr_affine_kernel_new(m, fn);
        if (!ak) continue; /* nothing can be said of this kernel */
        for (int32_t s = 0; s < fn->nstmts; s++) {
            const ptx_insn *x = fn->stmts[s].kind == PTX_STMT_INSN ? fn->stmts[s].insn : NULL;
            if (!x || x->id >= m->ninsns || x->space != PTX_SPACE_GLOBAL ||
                !(ptx_opcode_class((ptx_opcode)x->op) & PTX_OPC_MEMORY))
                continue;
            gr_affine_form f = gr_affine_address(ak, x);
            if (f.base == GR_AFFINE_BASE_PARAM && f.base_index >= 0 && f.base_index < fn->nparams)
                base[x->id] = f.base_index + 1;
        }
        gr_affine_kernel_free(ak);
    }
    for (int32_t i = 0; i < p->ncode; i++) {
        sim_insn *in = &p->code[i];
        if ((in->h == H_LD || in->h == H_ST || in->h == H_ATOM || in->h == H_RED) &&
            in->id < m->ninsns)
            in->base_param = base[in->id];
    }
    free(base);
    return true;
}

/* The launch buffer holding `addr`, or NULL (also for a module .global variable: the kernel may
 * reach it by its name too, which the aliasing check does not see; the GPU backend's launch
 * buffers do not include them either). */
static const sim_alloc *alloc_at(const sim_backend *be, const sim_program *p, uint64_t addr) {
    int32_t lo = 0, hi = be->nallocs - 1;
    while (lo <= hi) {
        int32_t mid = (lo + hi) / 2;
        const sim_alloc *a = &be->allocs[mid];
        if (addr < a->addr) hi = mid - 1;
        else if (addr >= a->addr + (a->size ? a->size : 1)) lo = mid + 1;
        else {
            for (int32_t v = 0; v < p->nvars; v++)
                if (p->vars[v].space == PTX_SPACE_GLOBAL && p->vars[v].addr == a->addr) return NULL;
            return a;
        }
    }
    return NULL;
}

static void add_range(sim_filter_range *g, uint64_t lo, uint64_t len) {
    if (g->n < SIM_FILTER_RANGES) {
        g->lo[g->n] = lo;
        g->len[g->n] = len;
        g->n++;
    }
}

/* The shared-window offset of a .shared variable, or false. */
static bool shared_offset(const sim_program *p, const ptx_var *v, uint64_t *off) {
    for (int32_t i = 0; i < p->nvars; i++)
        if (p->vars[i].var == v && p->vars[i].space == PTX_SPACE_SHARED) {
            *off = p->vars[i].addr;
            return true;
        }
    return false;
}

static void site_range(const sim_run *r, const gr_filter_site *s, const int64_t *arg_buffer,
                       int nargs, sim_filter_range *g) {
    memset(g, 0, sizeof *g);
    switch (s->kind) {
    case GR_FILTER_QUIET:
        g->any = true;
        g->n = 1;
        return;
    case GR_FILTER_PRIVATE_SHARED: {
        uint64_t off;
        if (shared_offset(r->prog, s->array, &off)) add_range(g, SIM_SHARED_BASE + off, s->array_bytes);
        return;
    }
    case GR_FILTER_PRIVATE_GLOBAL:
    case GR_FILTER_READONLY: {
        /* read-only: all of the address's parameters are (gr_filter_site_enabled); the bytes
         * must lie in the buffer of one of them. Private: the one parameter's buffer. */
        if (__builtin_popcount(s->params) > SIM_FILTER_RANGES) return;
        for (int i = 0; i < nargs && i < 32; i++) {
            if (!(s->params >> i & 1u) || arg_buffer[i] < 0) continue;
            const sim_alloc *a = &r->be->allocs[arg_buffer[i]];
            add_range(g, a->addr, a->size);
        }
        return;
    }
    default: return;
    }
}

/* Where each pointer argument points (r->param_alloc): the launch buffer's start, 0 for none. */
static bool prepare_provenance(sim_run *r, const gr_launch *L) {
    r->param_alloc = calloc((size_t)(L->nargs > 0 ? L->nargs : 0) + 1, sizeof *r->param_alloc);
    if (!r->param_alloc) return false;
    r->nparam_alloc = L->nargs;
    for (int i = 0; i < L->nargs; i++) {
        if (L->args[i].size != 8) continue;
        uint64_t v;
        memcpy(&v, L->args[i].data, 8);
        const sim_alloc *a = alloc_at(r->be, r->prog, v);
        r->param_alloc[i] = a ? a->addr : 0;
    }
    return true;
}

bool sim_filter_prepare(sim_run *r, const gr_launch *L) {
    r->filter = NULL;
    if (!prepare_provenance(r, L)) return false;
    const gr_access_filter *f = &r->prog->filter;
    if (L->access_filter == GR_ACCESS_FILTER_OFF || !L->detect || !f->nsites) return true;
    const gr_filter_kernel *k = gr_access_filter_kernel(f, r->kernel_index);
    if (!k) return true;
    struct sim_filter_run *fr = calloc(1, sizeof *fr);
    int64_t *arg_buffer = malloc(((size_t)(L->nargs > 0 ? L->nargs : 0) + 1) * sizeof *arg_buffer);
    if (fr) fr->sites = calloc(f->nsites, sizeof *fr->sites);
    if (!fr || !fr->sites || !arg_buffer) {
        free(arg_buffer);
        if (fr) free(fr->sites);
        free(fr);
        return false;
    }
    fr->user = L->hooks;
    /* the aliasing the GPU backend checks on the arguments (gr_readonly_launch_bits) */
    for (int i = 0; i < L->nargs; i++) {
        arg_buffer[i] = GR_READONLY_ARG_NOT_POINTER;
        if (L->args[i].size != 8) continue;
        uint64_t v;
        memcpy(&v, L->args[i].data, 8);
        const sim_alloc *a = alloc_at(r->be, r->prog, v);
        arg_buffer[i] = a ? (int64_t)(a - r->be->allocs) : GR_READONLY_ARG_NO_BUFFER;
    }
    uint32_t bits = gr_readonly_launch_bits(k->readonly, k->exclusive, arg_buffer, L->nargs);
    const uint32_t ntid[3] = {r->block.x, r->block.y, r->block.z};
    const uint32_t nctaid[3] = {r->grid.x, r->grid.y, r->grid.z};
    for (uint32_t i = 0; i < f->nsites; i++) {
        const gr_filter_site *s = &f->sites[i];
        if (s->function == r->kernel_index && gr_filter_site_enabled(s, bits, ntid, nctaid))
            site_range(r, s, arg_buffer, L->nargs, &fr->sites[i]);
    }
    free(arg_buffer);
    r->filter = fr;
    return true;
}

void sim_filter_release(sim_run *r) {
    free(r->param_alloc);
    r->param_alloc = NULL;
    r->nparam_alloc = 0;
    if (!r->filter) return;
    free(r->filter->sites);
    free(r->filter);
    r->filter = NULL;
}

uint32_t sim_filter_lanes(const sim_run *r, const sim_insn *in, uint32_t mask, uint32_t size) {
    const sim_filter_range *g = &r->filter->sites[in->filter_site - 1];
    if (g->any) return mask;
    uint32_t skip = 0;
    for (uint32_t m = mask; m && g->n; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint64_t a = r->ev_addr[l];
        for (uint8_t k = 0; k < g->n; k++)
            if (g->len[k] >= size && a - g->lo[k] <= g->len[k] - size) {
                skip |= 1u << l;
                break;
            }
    }
    return skip;
}

bool sim_filter_holds(const sim_run *r, const sim_insn *in, uint64_t lo, uint64_t hi, uint32_t size) {
    const sim_filter_range *g = &r->filter->sites[in->filter_site - 1];
    if (g->any) return true;
    for (uint8_t k = 0; k < g->n; k++)
        if (g->len[k] >= size && lo - g->lo[k] <= g->len[k] - size &&
            hi - g->lo[k] <= g->len[k] - size)
            return true;
    return false;
}

const gr_exec_hooks *sim_filter_user_hooks(const sim_run *r) { return r->filter ? r->filter->user : NULL; }
