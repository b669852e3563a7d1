/* filter.c — the access filter's table from the analyses (filter.h). */
#include "jit/analysis/filter.h"

#include <stdlib.h>
#include <string.h>

#include "jit/analysis/intervals.h"
#include "jit/analysis/readonly.h"

/* Whether a relaxed atomic could be part of a release or acquire pattern somewhere in the
 * module: a fence, or an access with release/acquire semantics (release sequences). */
static bool module_orders_atomics(const ptx_module *m) {
    for (int32_t f = 0; f < m->nfunctions; f++) {
        const ptx_function *fn = &m->functions[f];
        for (int32_t k = 0; k < fn->nstmts; k++) {
            if (fn->stmts[k].kind != PTX_STMT_INSN) continue;
            const ptx_insn *x = fn->stmts[k].insn;
            if (x->unknown || x->op == PTX_OP_MEMBAR || x->op == PTX_OP_FENCE) return true;
            if (x->sem == PTX_SEM_ACQUIRE || x->sem == PTX_SEM_RELEASE || x->sem == PTX_SEM_ACQ_REL ||
                x->sem == PTX_SEM_SC)
                return true;
        }
    }
    return false;
}

static bool weak(const ptx_insn *x) { return x->sem == PTX_SEM_NONE || x->sem == PTX_SEM_WEAK; }

/* The site of one instruction of kernel `function`, if any analysis lets it go. */
static bool site_of(const gr_quiet_loads *q, const gr_readonly *ro, bool atomics_ordered,
                    int32_t function, const ptx_insn *x, gr_filter_site *s) {
    memset(s, 0, sizeof *s);
    int size = ptx_insn_access_size(x);
    if (x->unknown || size <= 0) return false;
    s->id = x->id;
    s->size = (uint32_t)size;
    s->function = function;
    gr_affine_launch_any(&s->launch);
    bool plain = (x->op == PTX_OP_LD || x->op == PTX_OP_ST) && weak(x);
    if (gr_quiet_load(q, x->id)) {
        s->atomic = x->op == PTX_OP_ATOM || x->op == PTX_OP_RED;
        if (s->atomic ? atomics_ordered : !(x->op == PTX_OP_LD && weak(x))) return false;
        s->kind = GR_FILTER_QUIET;
        return true;
    }
    const gr_private_access *pa = gr_private_access_find(q, x->id);
    if (pa && plain) {
        s->launch = pa->launch;
        if (pa->shared) {
            if (!pa->array_var || (uint64_t)size > pa->array_bytes) return false;
            s->kind = GR_FILTER_PRIVATE_SHARED;
            s->array = pa->array_var;
            s->array_bytes = pa->array_bytes;
        } else {
            if (pa->param >= 32) return false;
            s->kind = GR_FILTER_PRIVATE_GLOBAL;
            s->params = 1u << pa->param;
        }
        return true;
    }
    uint32_t mask = gr_readonly_mask(ro, x->id);
    if (mask && x->op == PTX_OP_LD && weak(x)) {
        s->kind = GR_FILTER_READONLY;
        s->params = mask;
        return true;
    }
    return false;
}

static int site_cmp(const void *a, const void *b) {
    uint32_t x = ((const gr_filter_site *)a)->id, y = ((const gr_filter_site *)b)->id;
    return x < y ? -1 : x > y;
}

bool gr_access_filter_find(const ptx_module *m, gr_access_filter *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    gr_quiet_loads q;
    gr_readonly ro;
    if (!gr_quiet_loads_find(m, &q, err)) return false;
    if (!gr_readonly_find(m, &ro, err)) {
        gr_quiet_loads_free(&q);
        return false;
    }
    out->kernels_left_alone = q.kernels_left_alone;
    bool atomics_ordered = module_orders_atomics(m);
    bool ok = true;
    uint32_t cap = 0;
    for (int32_t f = 0; ok && f < m->nfunctions; f++) {
        const ptx_function *fn = &m->functions[f];
        if (!fn->is_entry || !fn->has_body) continue;
        uint32_t before = out->nsites;
        for (int32_t k = 0; ok && k < fn->nstmts; k++) {
            if (fn->stmts[k].kind != PTX_STMT_INSN) continue;
            gr_filter_site s;
            if (!site_of(&q, &ro, atomics_ordered, f, fn->stmts[k].insn, &s)) continue;
            if (out->nsites == cap) {
                cap = cap ? 2 * cap : 64;
                void *p = realloc(out->sites, cap * sizeof *out->sites);
                if (!p) {
                    ok = false;
                    break;
                }
                out->sites = p;
            }
            out->sites[out->nsites++] = s;
        }
        if (!ok || out->nsites == before) continue;
        void *p = realloc(out->kernels, (out->nkernels + 1u) * sizeof *out->kernels);
        if (!p) {
            ok = false;
            break;
        }
        out->kernels = p;
        gr_filter_kernel *kk = &out->kernels[out->nkernels++];
        kk->function = f;
        kk->readonly = gr_readonly_candidates(&ro, fn->name);
        kk->exclusive = 0;
        for (uint32_t i = 0; i < q.npriv_kernels; i++)
            if (strcmp(q.priv_kernels[i].name, fn->name) == 0) kk->exclusive = q.priv_kernels[i].params;
    }
    gr_quiet_loads_free(&q);
    gr_readonly_free(&ro);
    if (!ok) {
        gr_access_filter_free(out);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory building the access filter");
    }
    if (out->nsites) qsort(out->sites, out->nsites, sizeof *out->sites, site_cmp);
    return true;
}

void gr_access_filter_free(gr_access_filter *f) {
    free(f->sites);
    free(f->kernels);
    memset(f, 0, sizeof *f);
}

const gr_filter_site *gr_access_filter_site(const gr_access_filter *f, uint32_t id) {
    if (!f->nsites) return NULL;
    gr_filter_site key = {.id = id};
    return bsearch(&key, f->sites, f->nsites, sizeof *f->sites, site_cmp);
}

const gr_filter_kernel *gr_access_filter_kernel(const gr_access_filter *f, int32_t function) {
    for (uint32_t k = 0; k < f->nkernels; k++)
        if (f->kernels[k].function == function) return &f->kernels[k];
    return NULL;
}

static bool within(const gr_affine_launch *l, const uint32_t ntid[3], const uint32_t nctaid[3]) {
    for (int d = 0; d < 3; d++)
        if (ntid[d] > l->max_ntid[d] || nctaid[d] > l->max_nctaid[d]) return false;
    return true;
}

bool gr_filter_site_enabled(const gr_filter_site *s, uint32_t launch_bits, const uint32_t ntid[3],
                            const uint32_t nctaid[3]) {
    switch (s->kind) {
    case GR_FILTER_QUIET: return true;
    case GR_FILTER_PRIVATE_SHARED: return within(&s->launch, ntid, nctaid);
    case GR_FILTER_PRIVATE_GLOBAL:
        return (launch_bits & s->params) == s->params && within(&s->launch, ntid, nctaid);
    case GR_FILTER_READONLY: return (launch_bits & s->params) == s->params;
    default: return false;
    }
}
