/* facts.c — observations about kernels for inference and repair (facts.h). */
#include "jit/analysis/facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/analysis/affine.h"
#include "jit/analysis/cfg.h"
#include "jit/analysis/uniform.h"

#define EXIT_WALK 64 /* instructions an early return may take before it leaves */

/* ---- one kernel's reading: graph, forms, uniform values ---------------------------------------- */

typedef struct kernel_view {
    const ptx_module *m;
    const ptx_function *fn;
    gr_cfg g;
    uint32_t *npred, *pred;
    uint8_t *cut;
    gr_affine_kernel *ak;
    gr_uniform *u;
} kernel_view;

static void view_free(kernel_view *v) {
    gr_uniform_free(v->u);
    gr_affine_kernel_free(v->ak);
    free(v->npred);
    free(v->pred);
    free(v->cut);
    gr_cfg_free(&v->g);
    memset(v, 0, sizeof *v);
}

/* An unguarded barrier every thread of the block waits at (as intervals.c reads barriers). */
static bool full_barrier(const ptx_insn *x) {
    if ((x->op != PTX_OP_BAR && x->op != PTX_OP_BARRIER) || x->guard_reg >= 0 ||
        x->scope == PTX_SCOPE_CLUSTER)
        return false;
    int count_index = 1, nargs = x->noperands;
    if (x->subop == PTX_SUBOP_RED) {
        count_index = 2;
        nargs = x->noperands - 1;
    } else if (x->subop != PTX_SUBOP_NONE || !(x->flags & PTX_F_SYNC)) {
        return false;
    }
    return count_index >= nargs;
}

/* False with *oom clear when the kernel cannot be read (unknown label, unknown instruction). */
static bool view_build(const ptx_module *m, const ptx_function *fn, kernel_view *v, bool *oom) {
    memset(v, 0, sizeof *v);
    v->m = m;
    v->fn = fn;
    *oom = false;
    if (!gr_cfg_build(fn, &v->g, oom)) return false;
    size_t cells = v->g.n ? v->g.n : 1;
    v->npred = malloc(cells * sizeof *v->npred);
    v->pred = malloc(cells * sizeof *v->pred);
    v->cut = malloc(cells);
    if (!v->npred || !v->pred || !v->cut) return !(*oom = true);
    gr_cfg_predecessors(&v->g, v->npred, v->pred);
    for (uint32_t i = 0; i < v->g.n; i++) v->cut[i] = full_barrier(v->g.insn[i]);
    v->ak = gr_affine_kernel_new(m, fn);
    if (!v->ak) return false; /* an instruction the IR does not know (or no memory) */
    v->u = gr_uniform_find(&v->g, v->cut, v->npred, v->pred, v->ak);
    if (!v->u) return !(*oom = true);
    return true;
}

/* ---- special registers ----------------------------------------------------------------------------- */

static void note_sregs(const ptx_operand *o, uint8_t *dims) {
    if (o->kind == PTX_OPND_SREG && o->u.sreg < PTX_SREG_COUNT)
        dims[o->u.sreg] |= o->has_component ? (uint8_t)(1u << (o->component & 3u)) : GR_FACT_SREG_WHOLE;
    if (o->kind == PTX_OPND_VEC || o->kind == PTX_OPND_LIST || o->kind == PTX_OPND_TEX)
        for (uint32_t i = 0; i < o->u.list.nelems; i++) note_sregs(&o->u.list.elems[i], dims);
}

/* The special registers of function `f` and everything it calls (`seen` marks functions). */
static void sregs_of(const ptx_module *m, int32_t f, uint8_t *seen, uint8_t *dims) {
    if (f < 0 || seen[f]) return;
    seen[f] = 1;
    const ptx_function *fn = &m->functions[f];
    for (int32_t k = 0; k < fn->nstmts; k++) {
        if (fn->stmts[k].kind != PTX_STMT_INSN) continue;
        const ptx_insn *x = fn->stmts[k].insn;
        for (uint8_t i = 0; i < x->noperands; i++) {
            note_sregs(&x->operands[i], dims);
            if (x->op == PTX_OP_CALL && x->operands[i].kind == PTX_OPND_SYMBOL)
                sregs_of(m, ptx_module_find_function(m, x->operands[i].u.symbol), seen, dims);
        }
    }
}

/* ---- shared arrays ------------------------------------------------------------------------------- */

static uint32_t element_bytes(const ptx_var *v) {
    int n = ptx_type_size((ptx_type)v->type);
    return (uint32_t)(n > 0 ? n : 1) * (v->vec ? v->vec : 1);
}

static gr_fact_array *array_for(gr_kernel_facts *kf, const gr_affine_array *arr, bool *oom) {
    for (uint32_t i = 0; i < kf->narrays; i++)
        if (kf->arrays[i].name == arr->name) return &kf->arrays[i];
    void *p = realloc(kf->arrays, (kf->narrays + 1u) * sizeof *kf->arrays);
    if (!p) {
        *oom = true;
        return NULL;
    }
    kf->arrays = p;
    gr_fact_array *a = &kf->arrays[kf->narrays++];
    memset(a, 0, sizeof *a);
    a->name = arr->name;
    a->bytes = arr->bytes;
    a->element = arr->var ? element_bytes(arr->var) : 1;
    return a;
}

/* An offset read loosely, for block bounds only: thread terms, a constant, and some multiple of
 * `step` bytes the analysis cannot tell (0: none). Registers with several definitions (a row
 * index flipping between two values, an address kept across a loop) merge when their thread
 * terms agree: the constants' differences go into the step. */
typedef struct loose {
    bool ok;
    int64_t tid[3];
    int64_t constant, step;
} loose;

enum { LOOSE_DEPTH = 12 };
#define LOOSE_MAX ((int64_t)1 << 40)

static int64_t gcd64(int64_t a, int64_t b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static loose loose_opaque(void) { return (loose){true, {0, 0, 0}, 0, 1}; }

static bool loose_small(const loose *l) {
    for (int d = 0; d < 3; d++)
        if (l->tid[d] > LOOSE_MAX || l->tid[d] < -LOOSE_MAX) return false;
    return l->constant <= LOOSE_MAX && l->constant >= -LOOSE_MAX && l->step <= LOOSE_MAX;
}

static loose loose_scaled(loose l, int64_t c) {
    if (!l.ok || c > LOOSE_MAX || c < -LOOSE_MAX) return (loose){0};
    for (int d = 0; d < 3; d++) l.tid[d] *= c;
    l.constant *= c;
    l.step = gcd64(l.step * c, 0);
    l.ok = loose_small(&l);
    return l;
}

static loose loose_sum(loose a, loose b, int sign) {
    if (!a.ok || !b.ok) return (loose){0};
    for (int d = 0; d < 3; d++) a.tid[d] += sign * b.tid[d];
    a.constant += sign * b.constant;
    a.step = gcd64(a.step, b.step);
    a.ok = loose_small(&a);
    return a;
}

static loose loose_reg(kernel_view *v, int32_t r, int depth);

static loose loose_operand(kernel_view *v, const ptx_operand *o, int depth) {
    if (o->kind == PTX_OPND_IMM_INT) return (loose){true, {0, 0, 0}, (int64_t)o->u.imm, 0};
    if (o->kind == PTX_OPND_REG && !o->has_component) return loose_reg(v, o->u.reg, depth);
    if (o->kind == PTX_OPND_SYMBOL) return (loose){true, {0, 0, 0}, o->offset, 0}; /* the base */
    return (loose){0};
}

/* From an exact affine form: thread terms stay, every other term joins the step. */
static loose loose_of_form(const gr_affine_form *f) {
    loose l = {true, {0, 0, 0}, f->constant, 0};
    for (uint8_t t = 0; t < f->nterms; t++) {
        const gr_affine_term *term = &f->terms[t];
        if (term->degree == 1 && term->atoms[0] <= 2) l.tid[term->atoms[0]] += term->coef;
        else l.step = gcd64(l.step, term->coef);
    }
    l.ok = loose_small(&l);
    return l;
}

static loose loose_def(kernel_view *v, const ptx_insn *x, int depth) {
    const ptx_operand *o = x->operands;
    switch (x->op) {
    case PTX_OP_MOV:
    case PTX_OP_CVT:
    case PTX_OP_CVTA:
        if (x->noperands == 2) return loose_operand(v, &o[1], depth);
        break;
    case PTX_OP_ADD:
    case PTX_OP_SUB:
        if (x->noperands == 3)
            return loose_sum(loose_operand(v, &o[1], depth), loose_operand(v, &o[2], depth),
                             x->op == PTX_OP_ADD ? 1 : -1);
        break;
    case PTX_OP_MUL:
        if (x->noperands == 3 && (x->subop == PTX_SUBOP_LO || x->subop == PTX_SUBOP_WIDE)) {
            for (int k = 1; k <= 2; k++)
                if (o[k].kind == PTX_OPND_IMM_INT)
                    return loose_scaled(loose_operand(v, &o[3 - k], depth), (int64_t)o[k].u.imm);
            loose a = loose_operand(v, &o[1], depth), b = loose_operand(v, &o[2], depth);
            bool a_thread = a.tid[0] || a.tid[1] || a.tid[2], b_thread = b.tid[0] || b.tid[1] || b.tid[2];
            if (a.ok && b.ok && !a_thread && !b_thread) return loose_opaque();
        }
        break;
    case PTX_OP_SHL:
        if (x->noperands == 3 && o[2].kind == PTX_OPND_IMM_INT && o[2].u.imm < 40)
            return loose_scaled(loose_operand(v, &o[1], depth), (int64_t)1 << o[2].u.imm);
        break;
    default: break;
    }
    return (loose){0};
}

static loose loose_reg(kernel_view *v, int32_t r, int depth) {
    gr_affine_form f = gr_affine_register(v->ak, r);
    if (f.known) return loose_of_form(&f);
    if (depth >= LOOSE_DEPTH) return loose_opaque(); /* a value around a loop: some integer */
    uint32_t n = 0;
    const ptx_insn *const *defs = gr_affine_defs(v->ak, r, &n);
    if (n == 0) return (loose){0};
    loose out = {0};
    for (uint32_t i = 0; i < n; i++) {
        loose d = loose_def(v, defs[i], depth + 1);
        /* a value the reader cannot follow (a load, a select): some integer. Thread-dependent
         * or not, a multiple of a row's bytes built from it still selects a row. */
        if (!d.ok) d = loose_opaque();
        if (i == 0) {
            out = d;
            continue;
        }
        for (int k = 0; k < 3; k++)
            if (d.tid[k] != out.tid[k]) return (loose){0};
        out.step = gcd64(gcd64(out.step, d.step), out.constant - d.constant);
    }
    return out;
}

static bool note_arrays(kernel_view *v, gr_kernel_facts *kf) {
    bool oom = false;
    for (uint32_t i = 0; i < v->g.n && !oom; i++) {
        const ptx_insn *x = v->g.insn[i];
        if (!(ptx_opcode_class((ptx_opcode)x->op) & PTX_OPC_MEMORY) || x->op == PTX_OP_CP_ASYNC ||
            (x->space != PTX_SPACE_SHARED && x->space != PTX_SPACE_NONE))
            continue;
        gr_affine_form f = gr_affine_address(v->ak, x);
        if (f.base != GR_AFFINE_BASE_SHARED && f.base != GR_AFFINE_BASE_SHARED_GENERIC) continue;
        const gr_affine_array *arr = gr_affine_array_at(v->ak, f.base_index);
        if (!arr || !arr->var || arr->var->is_extern) continue; /* static arrays only */
        gr_fact_array *a = array_for(kf, arr, &oom);
        if (!a) break;
        void *p = realloc(a->accesses, (a->naccesses + 1u) * sizeof *a->accesses);
        if (!p) return false;
        a->accesses = p;
        gr_fact_access *acc = &a->accesses[a->naccesses++];
        memset(acc, 0, sizeof *acc);
        acc->id = x->id;
        acc->write = (ptx_opcode_class((ptx_opcode)x->op) & (PTX_OPC_WRITES | PTX_OPC_ATOMIC)) != 0;
        int size = ptx_insn_access_size(x);
        acc->size = size > 0 ? (uint32_t)size : 0;
        acc->known = f.known;
        gr_affine_format(v->ak, &f, acc->offset, sizeof acc->offset);
        acc->thread_only = f.known;
        acc->constant = f.constant;
        const ptx_operand *addr = ptx_insn_address(x);
        if (!f.known && addr && addr->addr_base == PTX_ADDR_REG) {
            loose l = loose_reg(v, addr->addr_reg, 0);
            l.constant += addr->offset;
            if (l.ok && l.step > 0 && (l.tid[0] || l.tid[1] || l.tid[2])) {
                acc->thread_only = true;
                acc->row_step = l.step;
                acc->constant = l.constant;
                for (int d = 0; d < 3; d++) acc->tid_coef[d] = l.tid[d];
            }
        }
        for (uint8_t t = 0; t < f.nterms && acc->thread_only && f.known; t++) {
            const gr_affine_term *term = &f.terms[t];
            /* a loop counter's multiple (>= 0, 0 on the first trip) does not loosen the bound,
             * also times other atoms, which are never negative (`4*ntid.x*iter`: a counter of
             * `c += blockDim.x`) */
            bool counter = false;
            for (uint8_t a = 0; a < term->degree; a++)
                counter |= gr_affine_atom_is_counter(v->ak, term->atoms[a]);
            if (counter && term->coef >= 0) continue;
            if (term->degree != 1 || term->atoms[0] > 2) acc->thread_only = false; /* tid.x/y/z */
            else acc->tid_coef[term->atoms[0]] += term->coef;
        }
    }
    return !oom;
}

/* ---- guards ------------------------------------------------------------------------------------- */

typedef enum side_kind { SIDE_OTHER, SIDE_CONST, SIDE_FCONST, SIDE_EXTENT, SIDE_PARAM, SIDE_INDEX, SIDE_LOADED } side_kind;

typedef struct side {
    side_kind kind;
    int64_t value;
    double fvalue;
    uint16_t sreg;
    uint8_t dim;
    int32_t param;
    uint32_t load_id;
    gr_affine_form form;
} side;

/* The one definition of register r, or NULL. */
static const ptx_insn *single_def(const kernel_view *v, int32_t r) {
    uint32_t n = 0;
    const ptx_insn *const *defs = gr_affine_defs(v->ak, r, &n);
    return n == 1 ? defs[0] : NULL;
}

/* The kernel parameter an ld.param reads, or -1. */
static int32_t param_read(const kernel_view *v, const ptx_insn *x) {
    if (!x || x->op != PTX_OP_LD || x->space != PTX_SPACE_PARAM) return -1;
    const ptx_operand *a = ptx_insn_address(x);
    if (!a || a->addr_base != PTX_ADDR_SYMBOL || a->offset != 0) return -1;
    for (int32_t p = 0; p < v->fn->nparams; p++)
        if (v->fn->params[p].name && strcmp(v->fn->params[p].name, a->addr_symbol) == 0) return p;
    return -1;
}

/* A load from a parameter's buffer (directly, or through one mov/cvt). */
static const ptx_insn *buffer_load(kernel_view *v, int32_t r, int32_t *param, int depth) {
    const ptx_insn *d = single_def(v, r);
    if (!d || depth > 2) return NULL;
    if ((d->op == PTX_OP_MOV || d->op == PTX_OP_CVT) && d->noperands == 2 &&
        d->operands[1].kind == PTX_OPND_REG && !d->operands[1].has_component)
        return buffer_load(v, d->operands[1].u.reg, param, depth + 1);
    if ((d->op != PTX_OP_LD && d->op != PTX_OP_LDU) ||
        (d->space != PTX_SPACE_GLOBAL && d->space != PTX_SPACE_NONE) || d->vec > 1)
        return NULL;
    gr_affine_form f = gr_affine_address(v->ak, d);
    if (f.base != GR_AFFINE_BASE_PARAM) return NULL;
    *param = f.base_index;
    return d;
}

static void read_side(kernel_view *v, const ptx_operand *o, side *s) {
    memset(s, 0, sizeof *s);
    switch (o->kind) {
    case PTX_OPND_IMM_INT:
        s->kind = SIDE_CONST;
        s->value = (int64_t)o->u.imm;
        return;
    case PTX_OPND_IMM_F32: {
        float f;
        memcpy(&f, &o->u.f32_bits, 4);
        s->kind = SIDE_FCONST;
        s->fvalue = f;
        return;
    }
    case PTX_OPND_IMM_F64:
        s->kind = SIDE_FCONST;
        memcpy(&s->fvalue, &o->u.f64_bits, 8);
        return;
    case PTX_OPND_REG: break;
    default: return;
    }
    if (o->has_component) return;
    int32_t r = o->u.reg;
    s->form = gr_affine_register(v->ak, r);
    if (gr_affine_single_sreg(&s->form, &s->sreg, &s->dim) &&
        (s->sreg == PTX_SREG_NTID || s->sreg == PTX_SREG_NCTAID)) {
        s->kind = SIDE_EXTENT;
        return;
    }
    int32_t p = param_read(v, single_def(v, r));
    if (p >= 0) {
        s->kind = SIDE_PARAM;
        s->param = p;
        return;
    }
    if (s->form.known && s->form.base == GR_AFFINE_BASE_NONE && gr_affine_mentions_thread(&s->form)) {
        s->kind = SIDE_INDEX;
        return;
    }
    const ptx_insn *load = buffer_load(v, r, &p, 0);
    if (load) {
        s->kind = SIDE_LOADED;
        s->param = p;
        s->load_id = load->id;
    }
}

static uint8_t mirrored(uint8_t c) { /* a OP b == b mirrored(OP) a */
    switch (c) {
    case PTX_CMP_LT: return PTX_CMP_GT;
    case PTX_CMP_LE: return PTX_CMP_GE;
    case PTX_CMP_GT: return PTX_CMP_LT;
    case PTX_CMP_GE: return PTX_CMP_LE;
    case PTX_CMP_LO: return PTX_CMP_HI;
    case PTX_CMP_LS: return PTX_CMP_HS;
    case PTX_CMP_HI: return PTX_CMP_LO;
    case PTX_CMP_HS: return PTX_CMP_LS;
    case PTX_CMP_LTU: return PTX_CMP_GTU;
    case PTX_CMP_LEU: return PTX_CMP_GEU;
    case PTX_CMP_GTU: return PTX_CMP_LTU;
    case PTX_CMP_GEU: return PTX_CMP_LEU;
    default: return c;
    }
}

static uint8_t negated(uint8_t c) { /* integer comparisons only */
    switch (c) {
    case PTX_CMP_EQ: return PTX_CMP_NE;
    case PTX_CMP_NE: return PTX_CMP_EQ;
    case PTX_CMP_LT: return PTX_CMP_GE;
    case PTX_CMP_GE: return PTX_CMP_LT;
    case PTX_CMP_LE: return PTX_CMP_GT;
    case PTX_CMP_GT: return PTX_CMP_LE;
    case PTX_CMP_LO: return PTX_CMP_HS;
    case PTX_CMP_HS: return PTX_CMP_LO;
    case PTX_CMP_LS: return PTX_CMP_HI;
    case PTX_CMP_HI: return PTX_CMP_LS;
    default: return PTX_CMP_NONE;
    }
}

/* Whether the thread leaves the kernel from node `at` before touching memory or synchronizing. */
static bool leaves_from(const kernel_view *v, uint32_t at) {
    for (int steps = 0; steps < EXIT_WALK && at < v->g.n; steps++) {
        const ptx_insn *x = v->g.insn[at];
        if ((x->op == PTX_OP_RET || x->op == PTX_OP_EXIT) && x->guard_reg < 0) return true;
        uint32_t cls = ptx_opcode_class((ptx_opcode)x->op);
        if (cls & (PTX_OPC_MEMORY | PTX_OPC_SYNC) || x->op == PTX_OP_CALL) return false;
        if (x->op == PTX_OP_BRA) {
            if (x->guard_reg >= 0) return false;
            at = v->g.target[at];
        } else {
            at++;
        }
    }
    return false;
}

/* Which value of predicate `p` makes the thread leave at once: 1 true, 0 false, -1 neither
 * (judged at its first use as a guard of a branch, ret or exit). */
static int exit_value(const kernel_view *v, int32_t p) {
    for (uint32_t i = 0; i < v->g.n; i++) {
        const ptx_insn *x = v->g.insn[i];
        if (x->guard_reg != p) continue;
        int taken = x->guard_negated ? 0 : 1; /* the value of p under which x runs */
        if (x->op == PTX_OP_RET || x->op == PTX_OP_EXIT) return taken;
        if (x->op != PTX_OP_BRA) continue;
        if (v->g.target[i] < v->g.n && leaves_from(v, v->g.target[i])) return taken;
        if (leaves_from(v, i + 1)) return 1 - taken;
        return -1;
    }
    return -1;
}

static bool add_guard(gr_kernel_facts *kf, const gr_fact_guard *g) {
    void *p = realloc(kf->guards, (kf->nguards + 1u) * sizeof *kf->guards);
    if (!p) return false;
    kf->guards = p;
    kf->guards[kf->nguards++] = *g;
    return true;
}

static bool note_guards(kernel_view *v, gr_kernel_facts *kf) {
    for (uint32_t i = 0; i < v->g.n; i++) {
        const ptx_insn *x = v->g.insn[i];
        if (x->op != PTX_OP_SETP || x->boolop != PTX_SUBOP_NONE || x->noperands < 3) continue;
        uint8_t first = x->operands[0].pair_next ? 2 : 1;
        if (x->noperands != first + 2 || x->operands[0].kind != PTX_OPND_REG) continue;
        side a, b;
        read_side(v, &x->operands[first], &a);
        read_side(v, &x->operands[first + 1], &b);
        bool swap = false;
        gr_fact_guard g;
        memset(&g, 0, sizeof g);
        g.id = x->id;
        if ((a.kind == SIDE_EXTENT && b.kind == SIDE_CONST) || (b.kind == SIDE_EXTENT && a.kind == SIDE_CONST)) {
            swap = b.kind == SIDE_EXTENT;
            const side *e = swap ? &b : &a, *c = swap ? &a : &b;
            g.kind = GR_FACT_GUARD_EXTENT;
            g.sreg = e->sreg;
            g.dim = e->dim;
            g.constant = c->value;
        } else if ((a.kind == SIDE_INDEX && b.kind == SIDE_PARAM) ||
                   (b.kind == SIDE_INDEX && a.kind == SIDE_PARAM)) {
            swap = b.kind == SIDE_INDEX;
            const side *ix = swap ? &b : &a, *p = swap ? &a : &b;
            g.kind = GR_FACT_GUARD_INDEX_BOUND;
            g.param = p->param;
            gr_affine_format(v->ak, &ix->form, g.index, sizeof g.index);
        } else if ((a.kind == SIDE_LOADED && (b.kind == SIDE_CONST || b.kind == SIDE_FCONST)) ||
                   (b.kind == SIDE_LOADED && (a.kind == SIDE_CONST || a.kind == SIDE_FCONST))) {
            swap = b.kind == SIDE_LOADED;
            const side *l = swap ? &b : &a, *c = swap ? &a : &b;
            g.kind = GR_FACT_GUARD_LOADED_VALUE;
            g.param = l->param;
            g.load_id = l->load_id;
            g.is_float = c->kind == SIDE_FCONST;
            g.constant = c->value;
            g.fconstant = c->fvalue;
        } else {
            continue;
        }
        g.cmp = swap ? mirrored(x->cmp) : x->cmp;
        bool integer = !ptx_type_is_float((ptx_type)x->type);
        int leave = integer ? exit_value(v, x->operands[0].u.reg) : -1;
        if (leave >= 0 && negated(g.cmp) != PTX_CMP_NONE) {
            g.exits = true;
            if (leave == 1) g.cmp = negated(g.cmp); /* goes on when the comparison fails */
        }
        if (!add_guard(kf, &g)) return false;
    }
    return true;
}

/* ---- scalars that size a buffer's indices ---------------------------------------------------- */

enum { CHAIN_NODES = 256, MAX_SLOTS = 64 };

/* The slot of parameter p at `offset` (added to the kernel's slots when new), or -1. */
static int slot_of(gr_kernel_facts *kf, int32_t p, uint32_t offset) {
    for (uint32_t s = 0; s < kf->nslots; s++)
        if (kf->slots[s].param == p && kf->slots[s].offset == offset) return (int)s;
    if (kf->nslots == MAX_SLOTS) return -1;
    kf->slots[kf->nslots] = (gr_fact_slot){p, offset};
    return (int)kf->nslots++;
}

/* The slot an ld.param reads into register r (added to the kernel's slots when new), or -1.
 * A vector load (`ld.param.v2.u32 {%r1, %r2}, [k_param_0]`, a struct's int2) reads one slot per
 * lane. */
static int slot_read(kernel_view *v, gr_kernel_facts *kf, const ptx_insn *x, int32_t r) {
    if (!x || x->op != PTX_OP_LD || x->space != PTX_SPACE_PARAM) return -1;
    const ptx_operand *a = ptx_insn_address(x);
    if (!a || a->addr_base != PTX_ADDR_SYMBOL || a->offset < 0) return -1;
    int64_t lane = 0;
    if (x->operands[0].kind == PTX_OPND_VEC) {
        lane = -1;
        for (uint32_t k = 0; k < x->operands[0].u.list.nelems; k++)
            if (x->operands[0].u.list.elems[k].kind == PTX_OPND_REG &&
                x->operands[0].u.list.elems[k].u.reg == r)
                lane = (int64_t)k * ptx_type_size((ptx_type)x->type);
        if (lane < 0) return -1;
    }
    int32_t p = -1;
    for (int32_t i = 0; i < v->fn->nparams && p < 0; i++)
        if (v->fn->params[i].name && strcmp(v->fn->params[i].name, a->addr_symbol) == 0) p = i;
    return p < 0 ? -1 : slot_of(kf, p, (uint32_t)(a->offset + lane));
}

/* Marks in `seen` the registers `r` is computed from (every definition, up to CHAIN_NODES of
 * them), and sets in *slots the parameter slots read along the way. Loads from memory end a
 * chain: an index read from a buffer is data. */
static void index_chain(kernel_view *v, gr_kernel_facts *kf, int32_t r, uint8_t *seen, int *budget,
                        uint64_t *slots) {
    if (r < 0 || r >= gr_affine_register_count(v->ak) || seen[r] || --*budget < 0) return;
    seen[r] = 1;
    uint32_t n = 0;
    const ptx_insn *const *defs = gr_affine_defs(v->ak, r, &n);
    for (uint32_t i = 0; i < n; i++) {
        const ptx_insn *d = defs[i];
        int s = slot_read(v, kf, d, r);
        if (s >= 0) {
            *slots |= 1ull << s;
            continue;
        }
        uint32_t cls = ptx_opcode_class((ptx_opcode)d->op);
        if (cls & (PTX_OPC_MEMORY | PTX_OPC_ATOMIC) || d->op == PTX_OP_CALL) continue;
        for (uint8_t k = 1; k < d->noperands; k++)
            if (d->operands[k].kind == PTX_OPND_REG && !d->operands[k].has_component)
                index_chain(v, kf, d->operands[k].u.reg, seen, budget, slots);
    }
}

/* The slot holding the pointer an address is built on (`ld.param.u64 %rd1, [k_param_0+8]`,
 * then cvta, add of an offset), or -1. */
static int pointer_root(kernel_view *v, gr_kernel_facts *kf, int32_t r, int depth) {
    uint32_t n = 0;
    const ptx_insn *const *defs = depth < 8 ? gr_affine_defs(v->ak, r, &n) : NULL;
    for (uint32_t i = 0; i < n; i++) { /* a pointer bumped in a loop: its first definition */
        const ptx_insn *d = defs[i];
        if (d->op == PTX_OP_LD) {
            int s = ptx_type_size((ptx_type)d->type) == 8 ? slot_read(v, kf, d, r) : -1;
            if (s >= 0) return s;
            continue;
        }
        if ((d->op == PTX_OP_MOV || d->op == PTX_OP_CVTA) && d->noperands == 2 &&
            d->operands[1].kind == PTX_OPND_REG) {
            int s = pointer_root(v, kf, d->operands[1].u.reg, depth + 1);
            if (s >= 0) return s;
        }
        if ((d->op == PTX_OP_ADD || d->op == PTX_OP_SUB) && d->noperands == 3 &&
            ptx_type_size((ptx_type)d->type) == 8)
            for (int k = 1; k <= (d->op == PTX_OP_ADD ? 2 : 1); k++)
                if (d->operands[k].kind == PTX_OPND_REG && d->operands[k].u.reg != r) {
                    int s = pointer_root(v, kf, d->operands[k].u.reg, depth + 1);
                    if (s >= 0) return s;
                }
    }
    return -1;
}

/* Which thread and block coordinates the registers in `seen` are computed from: bit d for
 * %tid.d, bit 3 + d for %ctaid.d. */
static uint8_t launch_dims_of(kernel_view *v, const uint8_t *seen, int32_t nregs) {
    uint8_t dims = 0;
    for (int32_t r = 0; r < nregs; r++) {
        if (!seen[r]) continue;
        uint32_t n = 0;
        const ptx_insn *const *defs = gr_affine_defs(v->ak, r, &n);
        for (uint32_t i = 0; i < n; i++)
            for (uint8_t k = 1; k < defs[i]->noperands; k++) {
                const ptx_operand *o = &defs[i]->operands[k];
                if (o->kind != PTX_OPND_SREG || !o->has_component || o->component > 2) continue;
                if (o->u.sreg == PTX_SREG_TID) dims |= (uint8_t)(1u << o->component);
                if (o->u.sreg == PTX_SREG_CTAID) dims |= (uint8_t)(8u << o->component);
            }
    }
    return dims;
}

static bool note_index_scalars(kernel_view *v, gr_kernel_facts *kf) {
    int32_t nregs = gr_affine_register_count(v->ak);
    kf->slots = calloc(MAX_SLOTS, sizeof *kf->slots);
    kf->index_scalars = calloc(MAX_SLOTS, sizeof *kf->index_scalars);
    kf->index_squared = calloc(MAX_SLOTS, sizeof *kf->index_squared);
    kf->index_launch = calloc(MAX_SLOTS, sizeof *kf->index_launch);
    int32_t *root = calloc(v->g.n ? v->g.n : 1, sizeof *root); /* per access: its pointer's slot */
    uint8_t *seen = calloc((size_t)(nregs > 0 ? nregs : 1), 1);
    uint8_t *any = calloc((size_t)(nregs > 0 ? nregs : 1), 1);
    uint64_t *cmp_with = calloc((size_t)(nregs > 0 ? nregs : 1), sizeof *cmp_with);
    if (!kf->slots || !kf->index_scalars || !kf->index_squared || !kf->index_launch || !seen || !any || !cmp_with || !root) {
        free(seen);
        free(any);
        free(cmp_with);
        free(root);
        return false;
    }
    for (uint32_t i = 0; i < v->g.n; i++) {
        const ptx_insn *x = v->g.insn[i];
        const ptx_operand *a = ptx_insn_address(x);
        root[i] = -1;
        if (!(ptx_opcode_class((ptx_opcode)x->op) & PTX_OPC_MEMORY) ||
            (x->space != PTX_SPACE_GLOBAL && x->space != PTX_SPACE_NONE) || !a ||
            a->addr_base != PTX_ADDR_REG)
            continue;
        gr_affine_form f = gr_affine_address(v->ak, x);
        root[i] = f.base == GR_AFFINE_BASE_PARAM ? slot_of(kf, f.base_index, 0)
                                                 : pointer_root(v, kf, a->addr_reg, 0);
    }
    for (uint32_t p = 0; p < kf->nslots; p++) { /* p: the slot of a buffer's pointer */
        memset(any, 0, (size_t)(nregs > 0 ? nregs : 1));
        bool accessed = false;
        uint64_t read_in = 0, compared = 0; /* parameters read into offsets / compared with them */
        memset(cmp_with, 0, (size_t)(nregs > 0 ? nregs : 1) * sizeof *cmp_with);
        for (uint32_t i = 0; i < v->g.n; i++) {
            const ptx_insn *x = v->g.insn[i];
            const ptx_operand *a = ptx_insn_address(x);
            if (root[i] != (int32_t)p) continue;
            accessed = true;
            memset(seen, 0, (size_t)(nregs > 0 ? nregs : 1));
            int budget = CHAIN_NODES;
            index_chain(v, kf, a->addr_reg, seen, &budget, &read_in);
            for (int32_t r = 0; r < nregs; r++) any[r] |= seen[r];
        }
        if (!accessed) continue;
        /* comparisons of a value the offsets use with a parameter: `row < m`, `i < k` */
        for (uint32_t i = 0; i < v->g.n; i++) {
            const ptx_insn *x = v->g.insn[i];
            if (x->op != PTX_OP_SETP || x->noperands < 3) continue;
            uint8_t first = x->operands[0].pair_next ? 2 : 1;
            if (x->noperands != first + 2) continue;
            const ptx_operand *l = &x->operands[first], *r = &x->operands[first + 1];
            for (int side = 0; side < 2; side++) {
                const ptx_operand *idx = side ? r : l, *bound = side ? l : r;
                if (idx->kind != PTX_OPND_REG || bound->kind != PTX_OPND_REG ||
                    idx->u.reg < 0 || idx->u.reg >= nregs || !any[idx->u.reg])
                    continue;
                memset(seen, 0, (size_t)(nregs > 0 ? nregs : 1));
                int budget = 16;
                uint64_t bp = 0;
                index_chain(v, kf, bound->u.reg, seen, &budget, &bp);
                compared |= bp;
                cmp_with[idx->u.reg] |= bp;
            }
        }
        /* a loop that moves an offset (a counter, a pointer bumped by a stride): the parameters
         * its exit test reads bound how far (`for (i = 0; i < k; i++) ... b[i * n + col]`) */
        for (uint32_t j = 0; j < v->g.n; j++) {
            const ptx_insn *x = v->g.insn[j];
            if (x->op != PTX_OP_BRA || x->guard_reg < 0 || v->g.target[j] > j) continue;
            bool moves = false;
            for (uint32_t k = v->g.target[j]; k < j && !moves; k++) {
                const ptx_insn *d = v->g.insn[k];
                moves = d->noperands > 0 && d->operands[0].kind == PTX_OPND_REG &&
                        d->operands[0].u.reg >= 0 && d->operands[0].u.reg < nregs &&
                        any[d->operands[0].u.reg] &&
                        !(ptx_opcode_class((ptx_opcode)d->op) & PTX_OPC_MEMORY);
            }
            if (!moves) continue;
            memset(seen, 0, (size_t)(nregs > 0 ? nregs : 1));
            int budget = 32;
            uint64_t bp = 0;
            index_chain(v, kf, x->guard_reg, seen, &budget, &bp);
            compared |= bp;
        }
        /* q squared: a value compared with q is multiplied by q (`row * n` under `row < n`) */
        uint64_t squared = 0;
        for (uint32_t i = 0; i < v->g.n; i++) {
            const ptx_insn *x = v->g.insn[i];
            if ((x->op != PTX_OP_MUL && x->op != PTX_OP_MAD) || x->noperands < 3 ||
                x->operands[0].kind != PTX_OPND_REG || x->operands[0].u.reg < 0 ||
                x->operands[0].u.reg >= nregs || !any[x->operands[0].u.reg])
                continue;
            for (int side = 1; side <= 2; side++) {
                const ptx_operand *f = &x->operands[side], *g = &x->operands[3 - side];
                if (f->kind != PTX_OPND_REG || g->kind != PTX_OPND_REG) continue;
                uint64_t pf = 0, pg = 0;
                int budget = 32;
                memset(seen, 0, (size_t)(nregs > 0 ? nregs : 1));
                index_chain(v, kf, f->u.reg, seen, &budget, &pf);
                memset(seen, 0, (size_t)(nregs > 0 ? nregs : 1));
                budget = 32;
                index_chain(v, kf, g->u.reg, seen, &budget, &pg);
                bool bounded = false;
                for (int32_t r = 0; r < nregs; r++)
                    if (seen[r]) {
                        squared |= cmp_with[r] & pf;
                        bounded |= cmp_with[r] != 0;
                    }
                if (pf && !bounded) kf->index_launch[p] |= launch_dims_of(v, seen, nregs);
            }
        }
        uint64_t own = 1ull << p; /* the buffer's own pointer */
        /* a pointer in a struct (a matrix with its sizes): a value compared with several
         * bounds (`row < A.height`, `row < C.height`) is bounded by those of its own struct */
        uint64_t mine = 0;
        for (uint32_t t = 0; t < kf->nslots && t < MAX_SLOTS; t++)
            if (kf->slots[t].param == kf->slots[p].param) mine |= 1ull << t;
        mine &= ~own; /* other fields of the buffer's struct; none for a plain pointer */
        if (compared & mine) {
            compared &= mine;
            squared &= mine;
        }
        kf->index_scalars[p] = (read_in | compared) & ~own;
        kf->index_squared[p] = squared & ~own;
    }
    free(seen);
    free(any);
    free(cmp_with);
    free(root);
    return true;
}

/* ---- the module --------------------------------------------------------------------------------- */

bool gr_facts_find(const ptx_module *m, gr_facts *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    uint8_t *seen = calloc((size_t)m->nfunctions + 1, 1);
    bool ok = seen != NULL;
    for (int32_t f = 0; ok && f < m->nfunctions; f++) {
        const ptx_function *fn = &m->functions[f];
        if (!fn->is_entry || !fn->has_body) continue;
        void *p = realloc(out->kernels, (out->nkernels + 1u) * sizeof *out->kernels);
        if (!p) {
            ok = false;
            break;
        }
        out->kernels = p;
        gr_kernel_facts *kf = &out->kernels[out->nkernels++];
        memset(kf, 0, sizeof *kf);
        kf->name = fn->name;
        kf->function = f;
        memset(seen, 0, (size_t)m->nfunctions + 1);
        sregs_of(m, f, seen, kf->sreg_dims);
        kernel_view v;
        bool oom = false;
        if (view_build(m, fn, &v, &oom))
            ok = note_arrays(&v, kf) && note_guards(&v, kf) && note_index_scalars(&v, kf);
        else if (oom) ok = false;
        view_free(&v);
    }
    free(seen);
    if (!ok) {
        gr_facts_free(out);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory reading kernel facts");
    }
    return true;
}

void gr_facts_free(gr_facts *f) {
    for (uint32_t k = 0; k < f->nkernels; k++) {
        for (uint32_t a = 0; a < f->kernels[k].narrays; a++) free(f->kernels[k].arrays[a].accesses);
        free(f->kernels[k].arrays);
        free(f->kernels[k].guards);
        free(f->kernels[k].slots);
        free(f->kernels[k].index_scalars);
        free(f->kernels[k].index_squared);
        free(f->kernels[k].index_launch);
    }
    free(f->kernels);
    memset(f, 0, sizeof *f);
}

void gr_fact_sreg_name(uint16_t sreg, uint8_t dim_bit, char *buf, size_t n) {
    const char *name = ptx_sreg_name((ptx_sreg)sreg);
    if (dim_bit == GR_FACT_SREG_WHOLE) snprintf(buf, n, "%s", name ? name : "?");
    else snprintf(buf, n, "%s.%c", name ? name : "?", "xyzw"[__builtin_ctz(dim_bit) & 3]);
}

const char *gr_fact_cmp_text(uint8_t cmp) {
    switch (cmp) {
    case PTX_CMP_EQ: case PTX_CMP_EQU: return "==";
    case PTX_CMP_NE: case PTX_CMP_NEU: return "!=";
    case PTX_CMP_LT: case PTX_CMP_LO: case PTX_CMP_LTU: return "<";
    case PTX_CMP_LE: case PTX_CMP_LS: case PTX_CMP_LEU: return "<=";
    case PTX_CMP_GT: case PTX_CMP_HI: case PTX_CMP_GTU: return ">";
    case PTX_CMP_GE: case PTX_CMP_HS: case PTX_CMP_GEU: return ">=";
    default: return "?";
    }
}

/* ---- barrier points ------------------------------------------------------------------------------ */

/* Post-dominators on the graph plus a virtual exit (node n) that ret, exit and trap lead to
 * (guarded ones too: the threads that take them leave). ipdom[i] == UINT32_MAX: i never
 * reaches the exit. */
typedef struct pdom {
    uint32_t n;
    uint32_t *ipdom, *order; /* order: postorder number on the reverse graph */
} pdom;

static uint32_t succs(const kernel_view *v, uint32_t i, uint32_t out[3]) {
    uint32_t k = gr_cfg_successors(&v->g, i, out);
    const ptx_insn *x = v->g.insn[i];
    if (x->op == PTX_OP_RET || x->op == PTX_OP_EXIT || x->op == PTX_OP_TRAP) out[k++] = v->g.n;
    return k;
}

static uint32_t intersect(const pdom *d, uint32_t a, uint32_t b) {
    while (a != b) {
        while (d->order[a] < d->order[b]) a = d->ipdom[a];
        while (d->order[b] < d->order[a]) b = d->ipdom[b];
    }
    return a;
}

static bool pdom_build(const kernel_view *v, pdom *d) {
    uint32_t n = v->g.n, total = n + 1;
    d->n = n;
    d->ipdom = malloc(total * sizeof *d->ipdom);
    d->order = malloc(total * sizeof *d->order);
    uint32_t *first = calloc(total + 1, sizeof *first), *preds = NULL, *fill = NULL;
    uint32_t *rpo = malloc(total * sizeof *rpo), *stack = malloc(2 * total * sizeof *stack);
    uint8_t *seen = calloc(total, 1);
    bool ok = d->ipdom && d->order && first && rpo && stack && seen;
    /* predecessor lists (the reverse graph's successors) */
    uint32_t out[3];
    for (uint32_t i = 0; ok && i < n; i++) {
        uint32_t k = succs(v, i, out);
        for (uint32_t j = 0; j < k; j++) first[out[j] + 1]++;
    }
    for (uint32_t i = 0; ok && i < total; i++) first[i + 1] += first[i];
    if (ok) {
        preds = malloc((first[total] + 1) * sizeof *preds);
        fill = calloc(total, sizeof *fill);
        ok = preds && fill;
    }
    for (uint32_t i = 0; ok && i < n; i++) {
        uint32_t k = succs(v, i, out);
        for (uint32_t j = 0; j < k; j++) preds[first[out[j]] + fill[out[j]]++] = i;
    }
    /* postorder of the reverse graph from the exit, iteratively */
    uint32_t count = 0, sp = 0;
    if (ok) {
        seen[n] = 1;
        stack[sp++] = n;
        stack[sp++] = 0;
    }
    while (ok && sp) {
        uint32_t at = stack[sp - 2], next = stack[sp - 1];
        if (next < first[at + 1] - first[at]) {
            stack[sp - 1]++;
            uint32_t p = preds[first[at] + next];
            if (!seen[p]) {
                seen[p] = 1;
                stack[sp++] = p;
                stack[sp++] = 0;
            }
        } else {
            d->order[at] = count;
            rpo[count++] = at;
            sp -= 2;
        }
    }
    for (uint32_t i = 0; ok && i < total; i++) d->ipdom[i] = UINT32_MAX;
    if (ok) d->ipdom[n] = n;
    for (bool changed = ok; changed;) {
        changed = false;
        for (uint32_t r = count; r-- > 0;) { /* reverse postorder */
            uint32_t b = rpo[r];
            if (b == n) continue;
            uint32_t k = succs(v, b, out), best = UINT32_MAX;
            for (uint32_t j = 0; j < k; j++) {
                if (d->ipdom[out[j]] == UINT32_MAX) continue;
                best = best == UINT32_MAX ? out[j] : intersect(d, out[j], best);
            }
            if (best != d->ipdom[b]) {
                d->ipdom[b] = best;
                changed = true;
            }
        }
    }
    free(first);
    free(preds);
    free(fill);
    free(rpo);
    free(stack);
    free(seen);
    return ok;
}

static void pdom_free(pdom *d) {
    free(d->ipdom);
    free(d->order);
}

/* Values the same for every thread of a block: launch extents, the block's place, sizes. */
static bool uniform_sreg(uint16_t s) {
    return s == PTX_SREG_NTID || s == PTX_SREG_NCTAID || s == PTX_SREG_CTAID ||
           s == PTX_SREG_DYNAMIC_SMEM_SIZE || s == PTX_SREG_TOTAL_SMEM_SIZE ||
           s == PTX_SREG_NWARPID || s == PTX_SREG_NSMID || s == PTX_SREG_GRIDID ||
           s == PTX_SREG_CLUSTERID || s == PTX_SREG_NCLUSTERID;
}

static bool operand_varies(const ptx_operand *o, const uint8_t *varying) {
    switch (o->kind) {
    case PTX_OPND_REG: return varying[o->u.reg];
    case PTX_OPND_SREG: return !uniform_sreg(o->u.sreg);
    case PTX_OPND_ADDR: return o->addr_base == PTX_ADDR_REG && varying[o->addr_reg];
    case PTX_OPND_VEC:
    case PTX_OPND_LIST:
    case PTX_OPND_TEX:
        for (uint32_t i = 0; i < o->u.list.nelems; i++)
            if (operand_varies(&o->u.list.elems[i], varying)) return true;
        return false;
    default: return false;
    }
}

/* Whether an instruction's results may differ between the threads of a block: it reads a
 * varying value, loads from memory other than parameters and constants, is a collective or a
 * call, runs under a varying guard, or runs in divergent code (so only some threads define). */
static bool result_varies(const ptx_insn *x, const uint8_t *varying, bool in_divergent_code) {
    if (in_divergent_code || x->unknown || (x->guard_reg >= 0 && varying[x->guard_reg])) return true;
    uint32_t cls = ptx_opcode_class((ptx_opcode)x->op);
    if (x->op == PTX_OP_CALL || (cls & (PTX_OPC_COLLECTIVE | PTX_OPC_ATOMIC)) ||
        x->op == PTX_OP_ACTIVEMASK || x->op == PTX_OP_CP_ASYNC)
        return true;
    if ((cls & PTX_OPC_MEMORY) && x->space != PTX_SPACE_PARAM && x->space != PTX_SPACE_CONST) return true;
    uint8_t first = x->noperands && x->operands[0].pair_next ? 2 : 1;
    for (uint8_t i = first; i < x->noperands; i++)
        if (operand_varies(&x->operands[i], varying)) return true;
    return false;
}

/* The registers an instruction defines (its first operand, or two for `a|b`). */
static void mark_defs(const ptx_insn *x, uint8_t *varying, int32_t nregs, bool *changed) {
    if (!x->noperands || (ptx_opcode_class((ptx_opcode)x->op) & PTX_OPC_CONTROL) || x->op == PTX_OP_ST ||
        x->op == PTX_OP_RED || x->op == PTX_OP_BAR || x->op == PTX_OP_BARRIER)
        return;
    uint8_t first = x->operands[0].pair_next ? 2 : 1;
    for (uint8_t i = 0; i < first && i < x->noperands; i++) {
        const ptx_operand *o = &x->operands[i];
        if (o->kind == PTX_OPND_REG && o->u.reg < nregs && !varying[o->u.reg]) {
            varying[o->u.reg] = 1;
            *changed = true;
        }
        for (uint32_t e = 0; (o->kind == PTX_OPND_VEC || o->kind == PTX_OPND_LIST) && e < o->u.list.nelems; e++) {
            const ptx_operand *el = &o->u.list.elems[e];
            if (el->kind == PTX_OPND_REG && el->u.reg < nregs && !varying[el->u.reg]) {
                varying[el->u.reg] = 1;
                *changed = true;
            }
        }
    }
}

/* Nodes reachable from a branch (or an early exit) whose condition varies, before its join. */
static bool mark_regions(const kernel_view *v, const pdom *d, const uint8_t *varying,
                         uint8_t *divergent, uint32_t *stack, uint8_t *seen) {
    bool grew = false;
    uint32_t n = v->g.n;
    for (uint32_t b = 0; b < n; b++) {
        const ptx_insn *x = v->g.insn[b];
        if (x->guard_reg < 0 || !varying[x->guard_reg]) continue;
        bool branch = x->op == PTX_OP_BRA && v->g.target[b] != b + 1;
        bool leaves = x->op == PTX_OP_RET || x->op == PTX_OP_EXIT || x->op == PTX_OP_TRAP;
        if (!branch && !leaves) continue;
        uint32_t join = d->ipdom[b], out[3], sp = 0, k = succs(v, b, out);
        memset(seen, 0, n ? n : 1);
        for (uint32_t j = 0; j < k; j++)
            if (out[j] < n && out[j] != join && !seen[out[j]]) seen[out[j]] = 1, stack[sp++] = out[j];
        while (sp) {
            uint32_t at = stack[--sp];
            grew = grew || !divergent[at];
            divergent[at] = 1;
            k = succs(v, at, out);
            for (uint32_t j = 0; j < k; j++)
                if (out[j] < n && out[j] != join && !seen[out[j]]) seen[out[j]] = 1, stack[sp++] = out[j];
        }
    }
    return grew;
}

/* Divergent code, with the varying registers, to a fixed point: a register defined in
 * divergent code varies, and a branch on a varying register makes code divergent. */
static bool mark_divergent(const kernel_view *v, const pdom *d, uint8_t *divergent) {
    uint32_t n = v->g.n;
    int32_t nregs = v->fn->nregs;
    uint8_t *varying = calloc((size_t)nregs + 1, 1), *seen = malloc(n ? n : 1);
    uint32_t *stack = malloc((3 * (size_t)n + 3) * sizeof *stack);
    if (!varying || !seen || !stack) {
        free(varying);
        free(seen);
        free(stack);
        return false;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < n; i++)
            if (result_varies(v->g.insn[i], varying, divergent[i])) mark_defs(v->g.insn[i], varying, nregs, &changed);
        if (mark_regions(v, d, varying, divergent, stack, seen)) changed = true;
    }
    free(varying);
    free(seen);
    free(stack);
    return true;
}

/* Whether `to` is reachable from `from`'s successors without passing `cut` (UINT32_MAX: none).
 * `seen` and `stack` have g.n cells. */
static bool reaches(const kernel_view *v, uint32_t from, uint32_t to, uint32_t cut, uint8_t *seen,
                    uint32_t *stack) {
    uint32_t n = v->g.n, sp = 0, out[2], k = gr_cfg_successors(&v->g, from, out);
    memset(seen, 0, n);
    for (uint32_t j = 0; j < k; j++)
        if (out[j] != cut && !seen[out[j]]) seen[out[j]] = 1, stack[sp++] = out[j];
    while (sp) {
        uint32_t at = stack[--sp];
        if (at == to) return true;
        k = gr_cfg_successors(&v->g, at, out);
        for (uint32_t j = 0; j < k; j++)
            if (out[j] != cut && !seen[out[j]]) seen[out[j]] = 1, stack[sp++] = out[j];
    }
    return false;
}

bool gr_barrier_points(const ptx_module *m, uint32_t from_id, uint32_t to_id, uint32_t **ids,
                       uint32_t *n, gr_error *err) {
    *ids = NULL;
    *n = 0;
    if (from_id >= m->ninsns || to_id >= m->ninsns || !m->insn_function) return true;
    int32_t f = m->insn_function[from_id];
    if (f < 0 || f != m->insn_function[to_id] || !m->functions[f].is_entry) return true;
    kernel_view v;
    bool oom = false;
    if (!view_build(m, &m->functions[f], &v, &oom)) {
        view_free(&v);
        return oom ? gr_fail(err, GR_ERR_NOMEM, "out of memory reading the kernel") : true;
    }
    uint32_t nodes = v.g.n, from = UINT32_MAX, to = UINT32_MAX;
    for (uint32_t i = 0; i < nodes; i++) {
        if (v.g.insn[i]->id == from_id) from = i;
        if (v.g.insn[i]->id == to_id) to = i;
    }
    pdom d = {0};
    uint8_t *divergent = calloc(nodes + 1, 1), *seen = malloc(nodes + 1), *between = calloc(nodes + 1, 1);
    uint32_t *stack = malloc((2 * (size_t)nodes + 2) * sizeof *stack);
    uint32_t *found = malloc((nodes + 1) * sizeof *found);
    bool ok = divergent && seen && between && stack && found && pdom_build(&v, &d) &&
              mark_divergent(&v, &d, divergent);
    uint32_t count = 0;
    if (ok && from < nodes && to < nodes && reaches(&v, from, to, UINT32_MAX, seen, stack)) {
        /* the nodes on some path: reachable from `from`, and `to` reachable from them */
        reaches(&v, from, UINT32_MAX, UINT32_MAX, seen, stack);
        memcpy(between, seen, nodes);
        for (uint32_t x = 0; x < nodes; x++) {
            if (!between[x] || divergent[x]) continue;
            if (x != to && !reaches(&v, x, to, UINT32_MAX, seen, stack)) continue;
            if (!reaches(&v, from, to, x, seen, stack)) found[count++] = v.g.insn[x]->id;
        }
    }
    if (ok && count) {
        *ids = found;
        *n = count;
        found = NULL;
    }
    free(found);
    free(divergent);
    free(seen);
    free(between);
    free(stack);
    pdom_free(&d);
    view_free(&v);
    return ok || gr_fail(err, GR_ERR_NOMEM, "out of memory finding barrier points");
}
