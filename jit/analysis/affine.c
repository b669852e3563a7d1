/* affine.c — affine forms of a kernel's addresses and the "different threads, different bytes"
 * proof (affine.h).
 *
 * Two passes per kernel: the bases of all registers to a fixed point over their definitions
 * (which pointer a value may be), then the offsets on demand, memoized, by evaluating a
 * register's definition (one definition, or the two of an induction register). */
#include "jit/analysis/affine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Atom numbering: the special registers, then one loop counter per register, then one
 * placeholder per register for "this register's own value" while an induction is tried. */
enum {
    ATOM_TID = 0,    /* + component */
    ATOM_NTID = 3,
    ATOM_CTAID = 6,
    ATOM_NCTAID = 9,
    ATOM_IV = 16,    /* + register index */
    ATOM_UNIFORM = 0x40000000, /* + register index: a block-uniform register (affine.h) */
};
#define BASE_BOTTOM 0xffu /* fixed point: no definition seen yet */
#define COEF_LIMIT ((int64_t)1 << 40)
#define EVAL_BUDGET 200000u
/* Block-uniform atoms are below 2^20 (uniform.h): with these coefficients, below 2^30. */
#define UNIFORM_COEF 1024

typedef enum reg_state { REG_NEW, REG_VISITING, REG_DONE } reg_state;

struct gr_affine_kernel {
    const ptx_module *m;
    const ptx_function *fn;
    int32_t nregs;
    uint32_t *def_first;      /* defs of register r: defs[def_first[r] .. def_first[r+1]) */
    const ptx_insn **defs;
    uint8_t *base;            /* fixed-point base per register */
    int32_t *base_index;
    uint8_t *state;
    bool *in_trial;           /* an induction is being tried for this register */
    gr_affine_form *memo;
    uint8_t *uniform;         /* registers read as block-uniform atoms */
    gr_affine_array *arrays;
    int32_t narrays;
    uint32_t self_atom_base;  /* ATOM_IV + nregs */
    uint32_t budget;
};

/* ---- forms ------------------------------------------------------------------------------------ */

static gr_affine_form form_unknown(uint8_t base, int32_t index) {
    gr_affine_form f;
    memset(&f, 0, sizeof f);
    f.base = base;
    f.base_index = index;
    return f;
}

static gr_affine_form form_const(int64_t k) {
    gr_affine_form f = form_unknown(GR_AFFINE_BASE_NONE, 0);
    f.known = true;
    f.constant = k;
    return f;
}

static gr_affine_form form_atom(uint32_t atom) {
    gr_affine_form f = form_const(0);
    f.nterms = 1;
    f.terms[0].coef = 1;
    f.terms[0].degree = 1;
    f.terms[0].atoms[0] = atom;
    return f;
}

static int term_order(const gr_affine_term *a, const gr_affine_term *b) {
    if (a->degree != b->degree) return a->degree < b->degree ? -1 : 1;
    for (int i = 0; i < a->degree; i++)
        if (a->atoms[i] != b->atoms[i]) return a->atoms[i] < b->atoms[i] ? -1 : 1;
    return 0;
}

static bool coef_ok(int64_t c) { return c > -COEF_LIMIT && c < COEF_LIMIT; }

/* Adds `t` into the term list of `f` (merging like monomials); false when it does not fit. */
static bool add_term(gr_affine_form *f, const gr_affine_term *t) {
    if (t->coef == 0) return true;
    for (uint8_t i = 0; i < f->nterms; i++) {
        if (term_order(&f->terms[i], t) != 0) continue;
        f->terms[i].coef += t->coef;
        if (!coef_ok(f->terms[i].coef)) return false;
        if (f->terms[i].coef == 0) {
            memmove(&f->terms[i], &f->terms[i + 1], (size_t)(f->nterms - i - 1) * sizeof *f->terms);
            f->nterms--;
        }
        return true;
    }
    if (f->nterms == GR_AFFINE_MAX_TERMS) return false;
    uint8_t at = f->nterms;
    while (at > 0 && term_order(&f->terms[at - 1], t) > 0) {
        f->terms[at] = f->terms[at - 1];
        at--;
    }
    f->terms[at] = *t;
    f->nterms++;
    return true;
}

static bool is_counter(const gr_affine_kernel *k, uint32_t atom) {
    return atom >= ATOM_IV && atom < k->self_atom_base + (uint32_t)k->nregs;
}

static bool is_uniform_atom(uint32_t atom) { return atom >= ATOM_UNIFORM; }

/* A loop counter (or placeholder) in both: the two would be samples at different times. (No
 * kernel: the caller's forms hold no counters.) */
static bool share_counter(const gr_affine_kernel *k, const gr_affine_form *a, const gr_affine_form *b) {
    if (!k) return false;
    for (uint8_t i = 0; i < a->nterms; i++)
        for (int x = 0; x < a->terms[i].degree; x++) {
            if (!is_counter(k, a->terms[i].atoms[x])) continue;
            for (uint8_t j = 0; j < b->nterms; j++)
                for (int y = 0; y < b->terms[j].degree; y++)
                    if (b->terms[j].atoms[y] == a->terms[i].atoms[x]) return true;
        }
    return false;
}

static uint8_t add_base(uint8_t a, uint8_t b) {
    if (a == GR_AFFINE_BASE_NONE) return b;
    if (b == GR_AFFINE_BASE_NONE) return a;
    return GR_AFFINE_BASE_UNKNOWN;
}

static gr_affine_form form_add(const gr_affine_kernel *k, const gr_affine_form *a,
                               const gr_affine_form *b, int64_t sign) {
    uint8_t base = sign > 0 ? add_base(a->base, b->base)
                            : (b->base == GR_AFFINE_BASE_NONE ? a->base : GR_AFFINE_BASE_UNKNOWN);
    int32_t index = a->base != GR_AFFINE_BASE_NONE ? a->base_index : b->base_index;
    gr_affine_form r = form_unknown(base, index);
    if (!a->known || !b->known || share_counter(k, a, b)) return r;
    r = *a;
    r.base = base;
    r.base_index = index;
    r.constant = a->constant + sign * b->constant;
    if (!coef_ok(r.constant)) return form_unknown(base, index);
    for (uint8_t i = 0; i < b->nterms; i++) {
        gr_affine_term t = b->terms[i];
        t.coef *= sign;
        if (!add_term(&r, &t)) return form_unknown(base, index);
    }
    return r;
}

static bool term_mul(const gr_affine_term *a, const gr_affine_term *b, gr_affine_term *out) {
    if (a->degree + b->degree > GR_AFFINE_MAX_DEGREE) return false;
    if (a->coef != 0 && (b->coef > COEF_LIMIT / (a->coef < 0 ? -a->coef : a->coef) ||
                         b->coef < -COEF_LIMIT / (a->coef < 0 ? -a->coef : a->coef)))
        return false;
    out->coef = a->coef * b->coef;
    out->degree = (uint8_t)(a->degree + b->degree);
    int n = 0;
    for (int i = 0; i < a->degree; i++) out->atoms[n++] = a->atoms[i];
    for (int i = 0; i < b->degree; i++) out->atoms[n++] = b->atoms[i];
    for (int i = 1; i < n; i++) /* insertion sort of at most 3 */
        for (int j = i; j > 0 && out->atoms[j - 1] > out->atoms[j]; j--) {
            uint32_t t = out->atoms[j];
            out->atoms[j] = out->atoms[j - 1];
            out->atoms[j - 1] = t;
        }
    return true;
}

static gr_affine_form form_mul(const gr_affine_kernel *k, const gr_affine_form *a,
                               const gr_affine_form *b) {
    bool pointer = a->base != GR_AFFINE_BASE_NONE || b->base != GR_AFFINE_BASE_NONE;
    gr_affine_form r = form_unknown(pointer ? GR_AFFINE_BASE_UNKNOWN : GR_AFFINE_BASE_NONE, 0);
    if (pointer || !a->known || !b->known || share_counter(k, a, b)) return r;
    gr_affine_form out = form_const(0);
    /* (Σ a_i + a0)(Σ b_j + b0), the constants as degree-0 terms */
    gr_affine_term at[GR_AFFINE_MAX_TERMS + 1], bt[GR_AFFINE_MAX_TERMS + 1];
    int na = 0, nb = 0;
    for (uint8_t i = 0; i < a->nterms; i++) at[na++] = a->terms[i];
    at[na++] = (gr_affine_term){.coef = a->constant};
    for (uint8_t i = 0; i < b->nterms; i++) bt[nb++] = b->terms[i];
    bt[nb++] = (gr_affine_term){.coef = b->constant};
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            gr_affine_term t;
            if (!term_mul(&at[i], &bt[j], &t)) return r;
            if (t.degree == 0) {
                out.constant += t.coef;
                if (!coef_ok(out.constant)) return r;
            } else if (!add_term(&out, &t)) {
                return r;
            }
        }
    return out;
}

/* ---- definitions and bases ------------------------------------------------------------------- */

/* Registers an instruction writes: its first operand when that is a register (or a vector or,
 * for calls, a list of them), and setp/shfl's second result. Stores, reductions, barriers and
 * branches start with an address, a number or a label. */
static uint32_t insn_defs(const ptx_insn *x, int32_t *out, uint32_t cap) {
    uint32_t n = 0;
    if (!x->noperands) return 0;
    const ptx_operand *o = &x->operands[0];
    if (o->kind == PTX_OPND_REG) {
        if (n < cap) out[n++] = o->u.reg;
        if (o->pair_next && x->noperands > 1 && x->operands[1].kind == PTX_OPND_REG && n < cap)
            out[n++] = x->operands[1].u.reg;
    } else if (o->kind == PTX_OPND_VEC || (o->kind == PTX_OPND_LIST && x->op == PTX_OP_CALL)) {
        for (uint32_t i = 0; i < o->u.list.nelems && n < cap; i++)
            if (o->u.list.elems[i].kind == PTX_OPND_REG) out[n++] = o->u.list.elems[i].u.reg;
    }
    return n;
}

static int32_t param_index(const ptx_function *fn, const char *name) {
    for (int32_t i = 0; i < fn->nparams; i++)
        if (strcmp(fn->params[i].name, name) == 0) return i;
    return -1;
}

static int32_t array_index(const gr_affine_kernel *k, const char *name) {
    for (int32_t i = 0; i < k->narrays; i++)
        if (strcmp(k->arrays[i].name, name) == 0) return i;
    return -1;
}

/* What a symbol operand's address is. */
static gr_affine_form symbol_form(const gr_affine_kernel *k, const char *name, int64_t offset) {
    int32_t a = array_index(k, name);
    if (a >= 0) {
        gr_affine_form f = form_const(offset);
        f.base = GR_AFFINE_BASE_SHARED;
        f.base_index = a;
        return f;
    }
    for (int32_t i = 0; i < k->fn->nvars; i++)
        if (strcmp(k->fn->vars[i].name, name) == 0) return form_unknown(GR_AFFINE_BASE_OTHER, 0);
    for (int32_t i = 0; i < k->m->nvars; i++)
        if (strcmp(k->m->vars[i].name, name) == 0) return form_unknown(GR_AFFINE_BASE_OTHER, 0);
    if (ptx_module_find_function(k->m, name) >= 0) return form_unknown(GR_AFFINE_BASE_OTHER, 0);
    return form_unknown(GR_AFFINE_BASE_UNKNOWN, 0);
}

static uint8_t operand_base(const gr_affine_kernel *k, const ptx_operand *o, int32_t *index) {
    *index = 0;
    if (o->kind == PTX_OPND_REG) {
        *index = k->base_index[o->u.reg];
        return k->base[o->u.reg];
    }
    if (o->kind == PTX_OPND_SYMBOL) {
        gr_affine_form f = symbol_form(k, o->u.symbol, 0);
        *index = f.base_index;
        return f.base;
    }
    if (o->kind == PTX_OPND_VEC || o->kind == PTX_OPND_LIST) return GR_AFFINE_BASE_UNKNOWN;
    return GR_AFFINE_BASE_NONE;
}

static bool is_integer(uint8_t t) { return t != PTX_TYPE_NONE && t != PTX_TYPE_PRED && !ptx_type_is_float((ptx_type)t); }

/* The base of what `x` writes into register `reg` (BASE_BOTTOM: an operand has none yet). */
static uint8_t def_base(const gr_affine_kernel *k, const ptx_insn *x, int32_t reg, int32_t *index) {
    *index = 0;
    bool wide = k->fn->regs[reg].type == PTX_TYPE_B64 || k->fn->regs[reg].type == PTX_TYPE_U64 ||
                k->fn->regs[reg].type == PTX_TYPE_S64;
    int32_t i1 = 0, i2 = 0;
    uint8_t b1 = x->noperands > 1 ? operand_base(k, &x->operands[1], &i1) : GR_AFFINE_BASE_NONE;
    uint8_t b2 = x->noperands > 2 ? operand_base(k, &x->operands[2], &i2) : GR_AFFINE_BASE_NONE;
    uint8_t b3 = GR_AFFINE_BASE_NONE;
    int32_t i3 = 0;
    if (x->noperands > 3) b3 = operand_base(k, &x->operands[3], &i3);
    if (x->operands[0].kind != PTX_OPND_REG) /* vectors, call results */
        return x->op == PTX_OP_CALL || wide ? GR_AFFINE_BASE_UNKNOWN : GR_AFFINE_BASE_NONE;
    switch (x->op) {
    case PTX_OP_LD:
    case PTX_OP_LDU:
        if (x->space == PTX_SPACE_PARAM) {
            const ptx_operand *a = ptx_insn_address(x);
            int32_t p = a && a->addr_base == PTX_ADDR_SYMBOL ? param_index(k->fn, a->addr_symbol) : -1;
            if (p >= 0 && wide && a->offset == 0) {
                *index = p;
                return GR_AFFINE_BASE_PARAM;
            }
        }
        return wide ? GR_AFFINE_BASE_UNKNOWN : GR_AFFINE_BASE_NONE;
    case PTX_OP_ATOM: return wide ? GR_AFFINE_BASE_UNKNOWN : GR_AFFINE_BASE_NONE;
    case PTX_OP_MOV:
    case PTX_OP_CVT:
        if (x->op == PTX_OP_CVT && (!is_integer(x->type) || !is_integer(x->type2))) return GR_AFFINE_BASE_NONE;
        *index = i1;
        return b1;
    case PTX_OP_CVTA: {
        if (b1 == BASE_BOTTOM) return BASE_BOTTOM;
        bool to = (x->flags & PTX_F_TO) != 0;
        if (x->space == PTX_SPACE_GLOBAL) {
            *index = i1;
            return b1;
        }
        if (x->space == PTX_SPACE_SHARED) {
            *index = i1;
            if (!to && b1 == GR_AFFINE_BASE_SHARED) return GR_AFFINE_BASE_SHARED_GENERIC;
            if (to && b1 == GR_AFFINE_BASE_SHARED_GENERIC) return GR_AFFINE_BASE_SHARED;
            return GR_AFFINE_BASE_UNKNOWN;
        }
        return GR_AFFINE_BASE_OTHER; /* local, const, param windows */
    }
    case PTX_OP_ADD:
        if (b1 == BASE_BOTTOM || b2 == BASE_BOTTOM) return BASE_BOTTOM;
        *index = b1 != GR_AFFINE_BASE_NONE ? i1 : i2;
        return add_base(b1, b2);
    case PTX_OP_SUB:
        if (b1 == BASE_BOTTOM || b2 == BASE_BOTTOM) return BASE_BOTTOM;
        *index = i1;
        return b2 == GR_AFFINE_BASE_NONE ? b1 : GR_AFFINE_BASE_UNKNOWN;
    case PTX_OP_MAD:
        if (b1 == BASE_BOTTOM || b2 == BASE_BOTTOM || b3 == BASE_BOTTOM) return BASE_BOTTOM;
        if (b1 != GR_AFFINE_BASE_NONE || b2 != GR_AFFINE_BASE_NONE) return GR_AFFINE_BASE_UNKNOWN;
        *index = i3;
        return b3;
    default: break;
    }
    for (uint8_t i = 1; i < x->noperands; i++) {
        int32_t ix;
        uint8_t b = operand_base(k, &x->operands[i], &ix);
        if (b == BASE_BOTTOM) return BASE_BOTTOM;
        if (b != GR_AFFINE_BASE_NONE) return GR_AFFINE_BASE_UNKNOWN;
    }
    return x->op == PTX_OP_CALL ? GR_AFFINE_BASE_UNKNOWN : GR_AFFINE_BASE_NONE;
}

static void bases_fixpoint(gr_affine_kernel *k) {
    for (int32_t r = 0; r < k->nregs; r++) k->base[r] = BASE_BOTTOM;
    for (bool changed = true; changed;) {
        changed = false;
        for (int32_t r = 0; r < k->nregs; r++) {
            for (uint32_t d = k->def_first[r]; d < k->def_first[r + 1]; d++) {
                int32_t index;
                uint8_t b = def_base(k, k->defs[d], r, &index);
                if (b == BASE_BOTTOM) continue;
                uint8_t old = k->base[r];
                uint8_t now = old == BASE_BOTTOM ? b
                              : (old == b && k->base_index[r] == index) ? old
                                                                       : GR_AFFINE_BASE_UNKNOWN;
                if (now != old || (old == BASE_BOTTOM)) {
                    if (now != old) changed = true;
                    k->base[r] = now;
                    k->base_index[r] = now == GR_AFFINE_BASE_UNKNOWN ? 0 : index;
                }
            }
        }
    }
    for (int32_t r = 0; r < k->nregs; r++)
        if (k->base[r] == BASE_BOTTOM) k->base[r] = GR_AFFINE_BASE_UNKNOWN; /* never written */
}

/* ---- offsets ---------------------------------------------------------------------------------- */

static gr_affine_form eval_reg(gr_affine_kernel *k, int32_t r, bool *tainted);

static gr_affine_form eval_operand(gr_affine_kernel *k, const ptx_operand *o, bool narrow,
                                   bool *tainted) {
    switch (o->kind) {
    case PTX_OPND_REG:
        if (o->has_component) return form_unknown(k->base[o->u.reg], k->base_index[o->u.reg]);
        return eval_reg(k, o->u.reg, tainted);
    case PTX_OPND_IMM_INT:
        return form_const(narrow ? (int64_t)(int32_t)(uint32_t)o->u.imm : (int64_t)o->u.imm);
    case PTX_OPND_SREG:
        if (o->component > 2) break;
        switch (o->u.sreg) {
        case PTX_SREG_TID: return form_atom(ATOM_TID + o->component);
        case PTX_SREG_NTID: return form_atom(ATOM_NTID + o->component);
        case PTX_SREG_CTAID: return form_atom(ATOM_CTAID + o->component);
        case PTX_SREG_NCTAID: return form_atom(ATOM_NCTAID + o->component);
        default: break;
        }
        break;
    case PTX_OPND_SYMBOL: return symbol_form(k, o->u.symbol, o->offset);
    default: break;
    }
    return form_unknown(GR_AFFINE_BASE_NONE, 0);
}

static gr_affine_form eval_def(gr_affine_kernel *k, const ptx_insn *x, int32_t reg, bool *tainted) {
    gr_affine_form unknown = form_unknown(k->base[reg], k->base_index[reg]);
    if (x->operands[0].kind != PTX_OPND_REG || x->operands[0].u.reg != reg) return unknown;
    bool narrow = ptx_type_size((ptx_type)x->type) <= 4;
    const ptx_operand *o = x->operands;
    switch (x->op) {
    case PTX_OP_MOV:
        if (x->noperands != 2) return unknown;
        return eval_operand(k, &o[1], narrow, tainted);
    case PTX_OP_CVT:
        /* sign/zero extension and truncation between 32 and 64 bits keep the integer */
        if (!is_integer(x->type) || !is_integer(x->type2) || ptx_type_size((ptx_type)x->type) < 4 ||
            ptx_type_size((ptx_type)x->type2) < 4 || x->noperands != 2)
            return unknown;
        return eval_operand(k, &o[1], ptx_type_size((ptx_type)x->type2) <= 4, tainted);
    case PTX_OP_CVTA:
        if (x->space != PTX_SPACE_GLOBAL || x->noperands != 2) return unknown;
        return eval_operand(k, &o[1], false, tainted);
    case PTX_OP_LD: {
        const ptx_operand *a = ptx_insn_address(x);
        if (x->space != PTX_SPACE_PARAM || !a || a->addr_base != PTX_ADDR_SYMBOL || a->offset != 0 ||
            k->base[reg] != GR_AFFINE_BASE_PARAM)
            return unknown;
        gr_affine_form f = form_const(0);
        f.base = GR_AFFINE_BASE_PARAM;
        f.base_index = k->base_index[reg];
        return f;
    }
    default: break;
    }
    if (!is_integer(x->type) || x->flags & PTX_F_CC) return unknown;
    gr_affine_form a, b, c;
    switch (x->op) {
    case PTX_OP_ADD:
    case PTX_OP_SUB:
        if (x->noperands != 3 || (x->flags & PTX_F_SAT)) return unknown;
        a = eval_operand(k, &o[1], narrow, tainted);
        b = eval_operand(k, &o[2], narrow, tainted);
        return form_add(k, &a, &b, x->op == PTX_OP_ADD ? 1 : -1);
    case PTX_OP_MUL:
        if (x->noperands != 3 || (x->subop != PTX_SUBOP_LO && x->subop != PTX_SUBOP_WIDE)) return unknown;
        a = eval_operand(k, &o[1], narrow, tainted);
        b = eval_operand(k, &o[2], narrow, tainted);
        return form_mul(k, &a, &b);
    case PTX_OP_MAD:
        if (x->noperands != 4 || (x->subop != PTX_SUBOP_LO && x->subop != PTX_SUBOP_WIDE)) return unknown;
        a = eval_operand(k, &o[1], narrow, tainted);
        b = eval_operand(k, &o[2], narrow, tainted);
        c = eval_operand(k, &o[3], x->subop != PTX_SUBOP_WIDE && narrow, tainted);
        a = form_mul(k, &a, &b);
        return form_add(k, &a, &c, 1);
    case PTX_OP_SHL:
        if (x->noperands != 3 || o[2].kind != PTX_OPND_IMM_INT || o[2].u.imm >= 40) return unknown;
        a = eval_operand(k, &o[1], narrow, tainted);
        b = form_const((int64_t)1 << o[2].u.imm);
        return form_mul(k, &a, &b);
    case PTX_OP_NEG:
        if (x->noperands != 2) return unknown;
        a = eval_operand(k, &o[1], narrow, tainted);
        b = form_const(-1);
        return form_mul(k, &a, &b);
    default: return unknown;
    }
}

static bool mentions(const gr_affine_form *f, uint32_t atom) {
    for (uint8_t i = 0; i < f->nterms; i++)
        for (int j = 0; j < f->terms[i].degree; j++)
            if (f->terms[i].atoms[j] == atom) return true;
    return false;
}

/* `r`'s two definitions as `r = INIT` and `r = r + STEP`: INIT + counter*STEP, or unknown. */
static gr_affine_form try_induction(gr_affine_kernel *k, int32_t r, bool *tainted) {
    gr_affine_form unknown = form_unknown(k->base[r], k->base_index[r]);
    uint32_t self = k->self_atom_base + (uint32_t)r;
    k->in_trial[r] = true;
    gr_affine_form out = unknown;
    for (int order = 0; order < 2 && !out.known; order++) {
        const ptx_insn *init_def = k->defs[k->def_first[r] + (uint32_t)order];
        const ptx_insn *step_def = k->defs[k->def_first[r] + (uint32_t)(1 - order)];
        bool t_init = false, t_step = false;
        gr_affine_form init = eval_def(k, init_def, r, &t_init);
        if (!init.known || mentions(&init, self)) continue;
        gr_affine_form step = eval_def(k, step_def, r, &t_step);
        if (!step.known) continue;
        /* step = self + S: take the self term out */
        gr_affine_form diff = step;
        bool found = false;
        for (uint8_t i = 0; i < diff.nterms; i++) {
            gr_affine_term *t = &diff.terms[i];
            if (t->degree == 1 && t->atoms[0] == self && t->coef == 1) {
                memmove(t, t + 1, (size_t)(diff.nterms - i - 1) * sizeof *t);
                diff.nterms--;
                found = true;
                break;
            }
        }
        if (!found) continue;
        /* S must be the same at every step: no counters or placeholders of any register */
        bool invariant = diff.base == GR_AFFINE_BASE_NONE || diff.base == step.base;
        for (uint8_t i = 0; i < diff.nterms && invariant; i++)
            for (int j = 0; j < diff.terms[i].degree; j++)
                if (is_counter(k, diff.terms[i].atoms[j])) invariant = false;
        if (!invariant || (diff.nterms == 0 && diff.constant == 0)) continue;
        diff.base = GR_AFFINE_BASE_NONE;
        gr_affine_form counter = form_atom(ATOM_IV + (uint32_t)r);
        gr_affine_form walk = form_mul(k, &counter, &diff);
        if (!walk.known) continue;
        out = form_add(k, &init, &walk, 1);
        if (t_init) *tainted = true;
    }
    k->in_trial[r] = false;
    if (!out.known) return unknown;
    out.base = k->base[r];
    out.base_index = k->base_index[r];
    return out;
}

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

/* `r`'s definitions as alternatives that differ only in their constants (a loop peeled by hand
 * or by the compiler: `j = ty`, `j = ty + 8`, ...): the least constant plus a multiple of their
 * differences' gcd, the multiple a counter of r's own. */
static gr_affine_form try_alternatives(gr_affine_kernel *k, int32_t r) {
    gr_affine_form unknown = form_unknown(k->base[r], k->base_index[r]), first = unknown;
    int64_t least = 0, step = 0;
    for (uint32_t d = k->def_first[r]; d < k->def_first[r + 1]; d++) {
        bool t = false;
        gr_affine_form f = eval_def(k, k->defs[d], r, &t);
        if (!f.known || t) return unknown;
        for (uint8_t i = 0; i < f.nterms; i++)
            for (int j = 0; j < f.terms[i].degree; j++)
                if (is_counter(k, f.terms[i].atoms[j])) return unknown;
        if (d == k->def_first[r]) {
            first = f;
            least = f.constant;
            continue;
        }
        if (f.base != first.base || f.base_index != first.base_index) return unknown;
        int64_t constant = f.constant;
        f.constant = first.constant; /* compare the terms */
        gr_affine_form diff = form_add(k, &f, &first, -1);
        if (!diff.known || diff.nterms != 0 || diff.constant != 0) return unknown;
        step = gcd64(step, constant - first.constant);
        if (constant < least) least = constant;
    }
    first.constant = least;
    if (step == 0) return first;
    gr_affine_form counter = form_atom(ATOM_IV + (uint32_t)r), scale = form_const(step);
    gr_affine_form walk = form_mul(k, &counter, &scale);
    gr_affine_form out = form_add(k, &first, &walk, 1);
    if (out.known) {
        out.base = first.base;
        out.base_index = first.base_index;
    }
    return out;
}

static gr_affine_form eval_reg(gr_affine_kernel *k, int32_t r, bool *tainted) {
    gr_affine_form unknown = form_unknown(k->base[r], k->base_index[r]);
    if (k->in_trial[r]) {
        *tainted = true;
        gr_affine_form self = form_atom(k->self_atom_base + (uint32_t)r);
        self.base = GR_AFFINE_BASE_NONE;
        return self;
    }
    if (k->uniform[r]) return form_atom(ATOM_UNIFORM + (uint32_t)r);
    if (k->state[r] == REG_DONE) return k->memo[r];
    if (k->state[r] == REG_VISITING || k->budget == 0) {
        *tainted = true;
        return unknown;
    }
    k->budget--;
    uint32_t ndefs = k->def_first[r + 1] - k->def_first[r];
    bool mine = false;
    gr_affine_form f = unknown;
    k->state[r] = REG_VISITING;
    if (ndefs == 1) f = eval_def(k, k->defs[k->def_first[r]], r, &mine);
    else if (ndefs == 2) f = try_induction(k, r, &mine);
    if (!f.known && ndefs >= 2) f = try_alternatives(k, r); /* refuses what a trial taints */
    if (f.known) {
        f.base = k->base[r];
        f.base_index = k->base_index[r];
    }
    if (mine) {
        *tainted = true;
        k->state[r] = REG_NEW; /* depends on a trial: evaluate again outside it */
    } else {
        k->memo[r] = f;
        k->state[r] = REG_DONE;
    }
    return f;
}

/* ---- kernels ----------------------------------------------------------------------------------- */

static uint64_t var_bytes(const ptx_var *v) {
    if (v->is_extern) return 0;
    uint64_t n = (uint64_t)ptx_type_size((ptx_type)v->type) * (v->vec ? v->vec : 1);
    for (int32_t d = 0; d < v->ndims; d++) {
        if (v->dims[d] < 0) return 0;
        n *= (uint64_t)v->dims[d];
    }
    return n;
}

gr_affine_kernel *gr_affine_kernel_new(const ptx_module *m, const ptx_function *fn) {
    gr_affine_kernel *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    k->m = m;
    k->fn = fn;
    k->nregs = fn->nregs;
    k->self_atom_base = ATOM_IV + (uint32_t)fn->nregs;
    k->budget = EVAL_BUDGET;
    size_t nr = (size_t)fn->nregs + 1;
    k->def_first = calloc(nr + 1, sizeof *k->def_first);
    k->base = calloc(nr, 1);
    k->base_index = calloc(nr, sizeof *k->base_index);
    k->state = calloc(nr, 1);
    k->in_trial = calloc(nr, sizeof *k->in_trial);
    k->memo = calloc(nr, sizeof *k->memo);
    k->uniform = calloc(nr, 1);
    k->arrays = calloc((size_t)fn->nvars + (size_t)m->nvars + 1, sizeof *k->arrays);
    bool ok = k->def_first && k->base && k->base_index && k->state && k->in_trial && k->memo &&
              k->uniform && k->arrays;
    /* count definitions, then place them */
    uint32_t total = 0;
    for (int32_t s = 0; ok && s < fn->nstmts; s++) {
        if (fn->stmts[s].kind != PTX_STMT_INSN) continue;
        const ptx_insn *x = fn->stmts[s].insn;
        if (x->unknown) ok = false;
        int32_t regs[8];
        uint32_t n = insn_defs(x, regs, 8);
        for (uint32_t i = 0; i < n; i++)
            if (regs[i] >= 0 && regs[i] < fn->nregs) k->def_first[regs[i] + 1]++, total++;
    }
    for (int32_t r = 0; ok && r < fn->nregs; r++) k->def_first[r + 1] += k->def_first[r];
    k->defs = ok ? malloc((total ? total : 1) * sizeof *k->defs) : NULL;
    uint32_t *fill = ok ? calloc(nr, sizeof *fill) : NULL;
    ok = ok && k->defs && fill;
    for (int32_t s = 0; ok && s < fn->nstmts; s++) {
        if (fn->stmts[s].kind != PTX_STMT_INSN) continue;
        const ptx_insn *x = fn->stmts[s].insn;
        int32_t regs[8];
        uint32_t n = insn_defs(x, regs, 8);
        for (uint32_t i = 0; i < n; i++)
            if (regs[i] >= 0 && regs[i] < fn->nregs) k->defs[k->def_first[regs[i]] + fill[regs[i]]++] = x;
    }
    free(fill);
    for (int32_t i = 0; ok && i < fn->nvars; i++)
        if (fn->vars[i].space == PTX_SPACE_SHARED)
            k->arrays[k->narrays++] = (gr_affine_array){fn->vars[i].name, var_bytes(&fn->vars[i]),
                                                               &fn->vars[i]};
    for (int32_t i = 0; ok && i < m->nvars; i++)
        if (m->vars[i].space == PTX_SPACE_SHARED)
            k->arrays[k->narrays++] = (gr_affine_array){m->vars[i].name, var_bytes(&m->vars[i]),
                                                               &m->vars[i]};
    if (!ok) {
        gr_affine_kernel_free(k);
        return NULL;
    }
    bases_fixpoint(k);
    return k;
}

void gr_affine_kernel_free(gr_affine_kernel *k) {
    if (!k) return;
    free(k->def_first);
    free(k->defs);
    free(k->base);
    free(k->base_index);
    free(k->state);
    free(k->in_trial);
    free(k->memo);
    free(k->uniform);
    free(k->arrays);
    free(k);
}

const gr_affine_array *gr_affine_array_at(const gr_affine_kernel *k, int32_t index) {
    return index >= 0 && index < k->narrays ? &k->arrays[index] : NULL;
}

gr_affine_form gr_affine_address(gr_affine_kernel *k, const ptx_insn *x) {
    const ptx_operand *a = ptx_insn_address(x);
    if (!a) return form_unknown(GR_AFFINE_BASE_UNKNOWN, 0);
    gr_affine_form base, off = form_const(a->offset);
    bool tainted = false;
    if (a->addr_base == PTX_ADDR_REG) base = eval_reg(k, a->addr_reg, &tainted);
    else if (a->addr_base == PTX_ADDR_SYMBOL) base = symbol_form(k, a->addr_symbol, 0);
    else return form_unknown(GR_AFFINE_BASE_UNKNOWN, 0);
    return form_add(k, &base, &off, 1);
}

/* ---- guards ------------------------------------------------------------------------------------ */

/* An integer comparison as signed-or-unsigned-agnostic order (tid and the bounds used here are
 * small and non-negative); PTX_CMP_NONE for anything else. */
static ptx_cmp plain_order(uint8_t cmp) {
    switch (cmp) {
    case PTX_CMP_LT: case PTX_CMP_LO: return PTX_CMP_LT;
    case PTX_CMP_LE: case PTX_CMP_LS: return PTX_CMP_LE;
    case PTX_CMP_GT: case PTX_CMP_HI: return PTX_CMP_GT;
    case PTX_CMP_GE: case PTX_CMP_HS: return PTX_CMP_GE;
    case PTX_CMP_EQ: return PTX_CMP_EQ;
    case PTX_CMP_NE: return PTX_CMP_NE;
    default: return PTX_CMP_NONE;
    }
}

static ptx_cmp mirrored(ptx_cmp c) { /* a OP b  ==  b mirrored(OP) a */
    return c == PTX_CMP_LT ? PTX_CMP_GT : c == PTX_CMP_GT ? PTX_CMP_LT
         : c == PTX_CMP_LE ? PTX_CMP_GE : c == PTX_CMP_GE ? PTX_CMP_LE : c;
}

static ptx_cmp negated(ptx_cmp c) { /* !(a OP b)  ==  a negated(OP) b */
    return c == PTX_CMP_LT ? PTX_CMP_GE : c == PTX_CMP_GE ? PTX_CMP_LT
         : c == PTX_CMP_LE ? PTX_CMP_GT : c == PTX_CMP_GT ? PTX_CMP_LE
         : c == PTX_CMP_EQ ? PTX_CMP_NE : c == PTX_CMP_NE ? PTX_CMP_EQ : PTX_CMP_NONE;
}

static bool is_tid(const gr_affine_form *f, uint32_t *dim) {
    if (!f->known || f->base != GR_AFFINE_BASE_NONE || f->nterms != 1 || f->constant != 0) return false;
    const gr_affine_term *t = &f->terms[0];
    if (t->degree != 1 || t->coef != 1 || t->atoms[0] >= ATOM_NTID) return false;
    *dim = t->atoms[0] - ATOM_TID;
    return true;
}

static bool is_constant(const gr_affine_form *f) {
    return f->known && f->base == GR_AFFINE_BASE_NONE && f->nterms == 0;
}

/* The one definition of predicate `pred` when it is a plain integer `setp a, b` (no combining
 * predicate, no second result), else NULL. */
static const ptx_insn *plain_setp(const gr_affine_kernel *k, int32_t pred) {
    if (pred < 0 || pred >= k->nregs || k->def_first[pred + 1] - k->def_first[pred] != 1) return NULL;
    const ptx_insn *x = k->defs[k->def_first[pred]];
    if (x->op != PTX_OP_SETP || x->noperands != 3 || x->boolop != PTX_SUBOP_NONE ||
        x->operands[0].pair_next || !is_integer(x->type))
        return NULL;
    return x;
}

/* A block-uniform atom plus a constant: the atom in *atom. */
static bool is_uniform_offset(const gr_affine_form *f, uint32_t *atom) {
    if (!f->known || f->base != GR_AFFINE_BASE_NONE || f->nterms != 1) return false;
    const gr_affine_term *t = &f->terms[0];
    if (t->degree != 1 || t->coef != 1 || !is_uniform_atom(t->atoms[0])) return false;
    *atom = t->atoms[0];
    return true;
}

static void cap_tid(gr_affine_bounds *b, uint32_t dim, int64_t cap, uint32_t atom) {
    if (b->capped[dim] && (b->cap_atom[dim] != atom || b->tid_cap[dim] <= cap)) return;
    b->capped[dim] = true;
    b->tid_cap[dim] = cap;
    b->cap_atom[dim] = atom;
}

bool gr_affine_guard_narrow(gr_affine_kernel *k, int32_t pred, bool value, gr_affine_bounds *b,
                            const ptx_insn **uniform_setp) {
    *uniform_setp = NULL;
    const ptx_insn *x = plain_setp(k, pred);
    if (!x) return false;
    ptx_cmp op = plain_order(x->cmp);
    if (op == PTX_CMP_NONE) return false;
    bool narrow = ptx_type_size((ptx_type)x->type) <= 4, tainted = false;
    gr_affine_form a = eval_operand(k, &x->operands[1], narrow, &tainted);
    gr_affine_form c = eval_operand(k, &x->operands[2], narrow, &tainted);
    if (tainted) return false;
    gr_affine_form *bound = &c;
    uint32_t dim;
    if (!is_tid(&a, &dim)) {
        if (!is_tid(&c, &dim)) return false;
        op = mirrored(op);
        bound = &a;
    }
    if (!value) op = negated(op);
    int64_t v = bound->constant;
    if (v <= -((int64_t)1 << 31) || v >= ((int64_t)1 << 31)) return false;
    uint32_t atom = 0;
    if (!is_constant(bound)) {
        /* tid < U + v: an upper bound the threads of one epoch share */
        if (!is_uniform_offset(bound, &atom)) return false;
        if (op != PTX_CMP_LT && op != PTX_CMP_LE) return false;
        cap_tid(b, dim, op == PTX_CMP_LT ? v - 1 : v, atom);
        *uniform_setp = x;
        return true;
    }
    switch (op) {
    case PTX_CMP_GE: if (v > b->tid_min[dim]) b->tid_min[dim] = v; return true;
    case PTX_CMP_GT: if (v + 1 > b->tid_min[dim]) b->tid_min[dim] = v + 1; return true;
    case PTX_CMP_NE: if (v == 0 && b->tid_min[dim] < 1) b->tid_min[dim] = 1; return v == 0;
    case PTX_CMP_LT: cap_tid(b, dim, v - 1, 0); return true;
    case PTX_CMP_LE: cap_tid(b, dim, v, 0); return true;
    case PTX_CMP_EQ:
        if (v > b->tid_min[dim]) b->tid_min[dim] = v;
        cap_tid(b, dim, v, 0);
        return true;
    default: return false;
    }
}

/* ---- one-bit flips ------------------------------------------------------------------------------ */

bool gr_affine_xor_guard(gr_affine_kernel *k, int32_t pred, bool value, gr_affine_xor *out) {
    const ptx_insn *x = plain_setp(k, pred);
    if (!x || ptx_type_size((ptx_type)x->type) != 4) return false;
    ptx_cmp op = plain_order(x->cmp);
    const ptx_operand *a = &x->operands[1], *b = &x->operands[2];
    if (op == PTX_CMP_NONE || op == PTX_CMP_EQ || op == PTX_CMP_NE || a->kind != PTX_OPND_REG ||
        b->kind != PTX_OPND_REG || a->has_component || b->has_component)
        return false;
    for (int side = 0; side < 2; side++) {
        int32_t l = side ? b->u.reg : a->u.reg, i = side ? a->u.reg : b->u.reg;
        ptx_cmp lop = side ? mirrored(op) : op; /* as "l lop i" */
        if (!value) lop = negated(lop);
        if (lop != PTX_CMP_GT && lop != PTX_CMP_GE) continue; /* l != i: GE is GT */
        if (l < 0 || l >= k->nregs || k->def_first[l + 1] - k->def_first[l] != 1) continue;
        const ptx_insn *d = k->defs[k->def_first[l]];
        if (d->op != PTX_OP_XOR || d->noperands != 3 || ptx_type_size((ptx_type)d->type) != 4) continue;
        for (int o = 1; o <= 2; o++) {
            const ptx_operand *reg = &d->operands[o], *imm = &d->operands[3 - o];
            if (reg->kind != PTX_OPND_REG || reg->u.reg != i || reg->has_component ||
                imm->kind != PTX_OPND_IMM_INT)
                continue;
            uint64_t j = imm->u.imm & 0xffffffffull;
            if (j == 0 || (j & (j - 1)) != 0 || j >= (1ull << 31)) continue; /* one bit, not the sign */
            *out = (gr_affine_xor){.index_reg = i, .flipped_reg = l, .bit = (int64_t)j};
            return true;
        }
    }
    return false;
}

const ptx_insn *const *gr_affine_defs(const gr_affine_kernel *k, int32_t r, uint32_t *n) {
    if (r < 0 || r >= k->nregs) {
        *n = 0;
        return NULL;
    }
    *n = k->def_first[r + 1] - k->def_first[r];
    return k->defs + k->def_first[r];
}

bool gr_affine_atom_is_counter(const gr_affine_kernel *k, uint32_t atom) { return is_counter(k, atom); }

bool gr_affine_set_uniform(gr_affine_kernel *k, const uint8_t *uniform) {
    for (int32_t r = 0; r < k->nregs; r++)
        k->uniform[r] = uniform[r] && k->base[r] == GR_AFFINE_BASE_NONE &&
                        is_integer(k->fn->regs[r].type);
    memset(k->state, REG_NEW, (size_t)k->nregs + 1);
    k->budget = EVAL_BUDGET;
    return true;
}

int32_t gr_affine_register_count(const gr_affine_kernel *k) { return k->nregs; }

bool gr_affine_has_uniform(const gr_affine_form *f) {
    for (uint8_t i = 0; f->known && i < f->nterms; i++)
        for (int j = 0; j < f->terms[i].degree; j++)
            if (is_uniform_atom(f->terms[i].atoms[j])) return true;
    return false;
}

gr_affine_form gr_affine_register(gr_affine_kernel *k, int32_t r) {
    bool tainted = false;
    if (r < 0 || r >= k->nregs) return form_unknown(GR_AFFINE_BASE_UNKNOWN, 0);
    gr_affine_form f = eval_reg(k, r, &tainted);
    return tainted ? form_unknown(f.base, f.base_index) : f;
}

bool gr_affine_address_over(gr_affine_kernel *k, const ptx_insn *x, int32_t reg, int64_t *coef,
                            gr_affine_form *rest) {
    if (reg < 0 || reg >= k->nregs) return false;
    /* Evaluate afresh with `reg` standing for itself; the memo holds forms without it. */
    size_t nr = (size_t)k->nregs + 1;
    uint8_t *state = malloc(nr);
    gr_affine_form *memo = malloc(nr * sizeof *memo);
    if (!state || !memo) {
        free(state);
        free(memo);
        return false;
    }
    memcpy(state, k->state, nr);
    memcpy(memo, k->memo, nr * sizeof *memo);
    uint32_t budget = k->budget;
    memset(k->state, REG_NEW, nr);
    k->budget = EVAL_BUDGET;
    k->in_trial[reg] = true;
    gr_affine_form f = gr_affine_address(k, x);
    k->in_trial[reg] = false;
    memcpy(k->state, state, nr);
    memcpy(k->memo, memo, nr * sizeof *memo);
    k->budget = budget;
    free(state);
    free(memo);
    uint32_t self = k->self_atom_base + (uint32_t)reg;
    if (!f.known || f.nterms != 1 || f.terms[0].degree != 1 || f.terms[0].atoms[0] != self ||
        f.terms[0].coef == 0)
        return false;
    *coef = f.terms[0].coef;
    *rest = f;
    rest->nterms = 0;
    return true;
}

gr_affine_form gr_affine_scaled(gr_affine_kernel *k, const gr_affine_form *rest, int64_t coef,
                                const gr_affine_form *index, int64_t add) {
    gr_affine_form c = form_const(coef), a = form_const(add);
    gr_affine_form sum = form_add(k, index, &a, 1);
    gr_affine_form scaled = form_mul(k, &sum, &c);
    gr_affine_form out = form_add(k, rest, &scaled, 1);
    if (out.known) {
        out.base = rest->base;
        out.base_index = rest->base_index;
    }
    return out;
}

/* ---- the proof ---------------------------------------------------------------------------------- */

void gr_affine_launch_any(gr_affine_launch *c) {
    for (int d = 0; d < 3; d++) c->max_ntid[d] = c->max_nctaid[d] = UINT32_MAX;
}

/* One place value of an address: coef * (launch atoms) * the thread's (or counter's) value. */
typedef struct digit {
    uint32_t var;      /* the varying atom */
    int64_t coef;      /* |integer coefficient| */
    uint32_t launch[GR_AFFINE_MAX_DEGREE];
    int nlaunch;
    int32_t range;     /* the extent atom bounding var (NTID/NCTAID), -1: a counter, unbounded */
} digit;

static int digit_order(const digit *a, const digit *b) {
    bool ac = a->range < 0, bc = b->range < 0;
    if (ac != bc) return ac ? 1 : -1;
    if (a->nlaunch != b->nlaunch) return a->nlaunch < b->nlaunch ? -1 : 1;
    if (a->coef != b->coef) return a->coef < b->coef ? -1 : 1;
    return 0;
}

/* Whether multiset `big` holds `small` plus `extra` (extra < 0: nothing extra). */
static bool launch_contains(const digit *big, const digit *small, int32_t extra) {
    uint32_t need[GR_AFFINE_MAX_DEGREE + 1];
    int n = 0;
    for (int i = 0; i < small->nlaunch; i++) need[n++] = small->launch[i];
    if (extra >= 0) need[n++] = (uint32_t)extra;
    bool used[GR_AFFINE_MAX_DEGREE] = {false};
    for (int i = 0; i < n; i++) {
        bool hit = false;
        for (int j = 0; j < big->nlaunch && !hit; j++)
            if (!used[j] && big->launch[j] == need[i]) used[j] = hit = true;
        if (!hit) return false;
    }
    return true;
}

static void cap_extent(gr_affine_launch *c, uint32_t atom, uint32_t cap) {
    uint32_t *slot = atom >= ATOM_NCTAID ? &c->max_nctaid[atom - ATOM_NCTAID] : &c->max_ntid[atom - ATOM_NTID];
    if (cap < *slot) *slot = cap;
}

/* Different threads differ in some digit, and with every place value at least the span of the
 * digits below it (the chain), two different digit vectors are at least the lowest place value
 * apart: enough when that covers the offsets' difference and the access size. A thread
 * coordinate the address ignores must have extent 1. */
static bool apart_by_place_values(const digit *digits, int nd, bool same_block, int64_t delta,
                                  uint32_t size, gr_affine_launch *cond) {
    gr_affine_launch c = *cond;
    bool seen[ATOM_NCTAID] = {false};
    for (int i = 0; i < nd; i++)
        if (digits[i].var < ATOM_NCTAID) seen[digits[i].var] = true;
    for (uint32_t d = 0; d < 3; d++) {
        if (!seen[ATOM_TID + d]) c.max_ntid[d] = 1;
        if (!same_block && !seen[ATOM_CTAID + d]) c.max_nctaid[d] = 1;
    }
    for (int i = 0; i + 1 < nd; i++) {
        const digit *cur = &digits[i], *next = &digits[i + 1];
        if (cur->range < 0) return false; /* a counter below another digit */
        if (launch_contains(next, cur, cur->range) && next->coef >= cur->coef) continue;
        if (next->nlaunch == cur->nlaunch && launch_contains(next, cur, -1)) {
            int64_t cap = next->coef / cur->coef;
            if (cap < 1) return false;
            cap_extent(&c, (uint32_t)cur->range, cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap);
            continue;
        }
        return false;
    }
    if (nd > 0 && digits[0].coef < delta + (int64_t)size) return false;
    if (nd == 0) { /* every thread at the same place: only a single thread is safe */
        for (int d = 0; d < 3; d++) {
            c.max_ntid[d] = 1;
            if (!same_block) c.max_nctaid[d] = 1;
        }
    }
    *cond = c;
    return true;
}

/* Two accesses whose addresses are the same sum of thread coordinates times constants, apart by
 * `delta`: the sets of bytes all threads reach are translates, disjoint when the sum's span plus
 * the access size fits in `delta` (s[0][tid] and s[1][tid] while blockDim.x <= 256). Lower
 * coordinates keep the chain's extents; the top one gets what the rest of `delta` allows. */
static bool apart_by_regions(const digit *digits, int nd, int64_t delta, uint32_t size,
                             gr_affine_launch *cond) {
    if (nd == 0 || delta < (int64_t)size) return false;
    gr_affine_launch c = *cond;
    int64_t room = delta - (int64_t)size;
    for (int i = 0; i < nd; i++) {
        const digit *d = &digits[i];
        if (d->range < 0 || d->nlaunch != 0) return false; /* counters, symbolic place values */
        int64_t cap;
        if (i + 1 < nd) {
            cap = digits[i + 1].coef / d->coef;
            if (cap < 1) return false;
        } else {
            cap = room / d->coef + 1;
        }
        room -= d->coef * (cap - 1);
        if (room < 0 || cap < 2) return false; /* a coordinate the address uses, held at one */
        cap_extent(&c, (uint32_t)d->range, cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap);
    }
    *cond = c;
    return true;
}

/* Whether condition `a` allows every launch `b` allows, and more. */
static bool launch_wider(const gr_affine_launch *a, const gr_affine_launch *b) {
    bool more = false;
    for (int d = 0; d < 3; d++) {
        if (a->max_ntid[d] < b->max_ntid[d] || a->max_nctaid[d] < b->max_nctaid[d]) return false;
        more = more || a->max_ntid[d] > b->max_ntid[d] || a->max_nctaid[d] > b->max_nctaid[d];
    }
    return more;
}

/* How far a guard moves an access's lowest address: a thread with %tid.d >= L reaches
 * coef*%tid.d only from coef*L on, so its bytes lie in a translate of the unguarded set by
 * coef*L (terms whose coordinate is multiplied by an extent are left where they are). */
static int64_t guard_shift(const gr_affine_form *f, const gr_affine_bounds *g) {
    int64_t shift = 0;
    for (uint8_t i = 0; g && i < f->nterms; i++) {
        const gr_affine_term *t = &f->terms[i];
        if (t->degree == 1 && t->atoms[0] < ATOM_NTID && g->tid_min[t->atoms[0]] > 0)
            shift += t->coef * g->tid_min[t->atoms[0]];
    }
    return shift;
}

/* The lowest and highest value of `f` over the threads `g` allows, as forms over what is the
 * same for every thread of one block and epoch: each %tid.d term takes the end of its range
 * (the guard's bounds, else 0 and %ntid.d - 1). False for counters and products with %tid. */
static bool thread_range(const gr_affine_form *f, const gr_affine_bounds *g, gr_affine_form *lo,
                         gr_affine_form *hi) {
    *lo = form_const(f->constant);
    *hi = *lo;
    for (uint8_t i = 0; i < f->nterms; i++) {
        const gr_affine_term *t = &f->terms[i];
        int thread = -1;
        for (int j = 0; j < t->degree; j++) {
            uint32_t at = t->atoms[j];
            if (at < ATOM_NTID) thread = (int)at;
            else if (at >= ATOM_IV && !is_uniform_atom(at)) return false; /* a counter */
            else if (is_uniform_atom(at) &&
                     (t->degree != 1 || t->coef > UNIFORM_COEF || t->coef < -UNIFORM_COEF))
                return false; /* keep the sum far from 32-bit wrap-around (uniform.h) */
        }
        gr_affine_form term = form_const(0);
        if (!add_term(&term, t)) return false;
        if (thread < 0) { /* the same value at both ends */
            gr_affine_form l = form_add(NULL, lo, &term, 1), h = form_add(NULL, hi, &term, 1);
            *lo = l;
            *hi = h;
            if (!lo->known || !hi->known) return false;
            continue;
        }
        if (t->degree != 1) return false;
        int d = thread;
        gr_affine_form least = form_const(g ? g->tid_min[d] : 0), most;
        if (g && g->capped[d]) {
            most = form_const(g->tid_cap[d]);
            if (g->cap_atom[d]) {
                gr_affine_form u = form_atom(g->cap_atom[d]);
                most = form_add(NULL, &most, &u, 1);
            }
        } else {
            gr_affine_form n = form_atom(ATOM_NTID + (uint32_t)d), one = form_const(-1);
            most = form_add(NULL, &n, &one, 1);
        }
        gr_affine_form coef = form_const(t->coef);
        gr_affine_form at_least = form_mul(NULL, &least, &coef);
        gr_affine_form at_most = form_mul(NULL, &most, &coef);
        gr_affine_form l = form_add(NULL, lo, t->coef > 0 ? &at_least : &at_most, 1);
        gr_affine_form h = form_add(NULL, hi, t->coef > 0 ? &at_most : &at_least, 1);
        *lo = l;
        *hi = h;
        if (!lo->known || !hi->known) return false;
    }
    return true;
}

/* Whether `f` is at least 0 whatever the launch and the block-uniform values: its extents'
 * products are at least 1, block indices at least 0, uniform values anything. */
static bool never_negative(const gr_affine_form *f) {
    if (!f->known) return false;
    int64_t least = f->constant;
    for (uint8_t i = 0; i < f->nterms; i++) {
        const gr_affine_term *t = &f->terms[i];
        if (t->coef < 0) return false;
        bool extents = true;
        for (int j = 0; j < t->degree; j++) {
            uint32_t at = t->atoms[j];
            if (at >= ATOM_IV || at < ATOM_NTID) return false;
            if (at >= ATOM_CTAID && at < ATOM_NCTAID) extents = false;
        }
        if (extents) least += t->coef;
    }
    return least >= 0;
}

/* Whether all bytes the threads of one block and epoch reach through `a` lie below all they
 * reach through `b`, or above: the guards' bounds, block-uniform ones included, decide
 * (s[tid] for tid < k against s[tid + k]). No launch condition is needed. */
static bool apart_by_bounds(const gr_affine_form *a, uint32_t a_size, const gr_affine_bounds *a_guard,
                            const gr_affine_form *b, uint32_t b_size, const gr_affine_bounds *b_guard) {
    gr_affine_form alo, ahi, blo, bhi;
    if (!thread_range(a, a_guard, &alo, &ahi) || !thread_range(b, b_guard, &blo, &bhi)) return false;
    gr_affine_form a_end = form_const((int64_t)a_size), b_end = form_const((int64_t)b_size);
    a_end = form_add(NULL, &ahi, &a_end, 1);
    b_end = form_add(NULL, &bhi, &b_end, 1);
    gr_affine_form below = form_add(NULL, &blo, &a_end, -1), above = form_add(NULL, &alo, &b_end, -1);
    return never_negative(&below) || never_negative(&above);
}

/* When `f` lacks %tid.d, which `like` has with coefficient c, and its guard holds %tid.d at one
 * value v, the thread making `f` is a thread at which `f + c*(%tid.d - v)` has the same value:
 * the lifted form can be compared term by term. */
static void lift_pinned(gr_affine_form *f, const gr_affine_bounds *g, const gr_affine_form *like) {
    for (uint8_t i = 0; g && i < like->nterms; i++) {
        const gr_affine_term *t = &like->terms[i];
        if (t->degree != 1 || t->atoms[0] >= ATOM_NTID) continue;
        uint32_t d = t->atoms[0];
        if (!g->capped[d] || g->cap_atom[d] || g->tid_cap[d] != g->tid_min[d] || mentions(f, d))
            continue;
        gr_affine_form lifted = *f, term = form_const(0);
        if (!add_term(&term, t)) continue;
        lifted = form_add(NULL, &lifted, &term, 1);
        if (!lifted.known || !coef_ok(t->coef * g->tid_cap[d])) continue;
        lifted.constant -= t->coef * g->tid_cap[d];
        lifted.base = f->base;
        lifted.base_index = f->base_index;
        *f = lifted;
    }
}

static bool same_terms(const gr_affine_form *a, const gr_affine_form *b) {
    if (a->nterms != b->nterms) return false;
    for (uint8_t i = 0; i < a->nterms; i++)
        if (term_order(&a->terms[i], &b->terms[i]) != 0 || a->terms[i].coef != b->terms[i].coef) return false;
    return true;
}

/* Terms with a loop counter stand for any multiple of their coefficient: when two forms have
 * the same other terms and every counter term and the difference of their constants are
 * multiples of one g, both read "other terms + g*m + the first's constant" with one counter m
 * of any integer value (the place-value proof never needs it to be at least 0). */
static bool fold_counters(const gr_affine_form *a, const gr_affine_form *b, gr_affine_form *fa,
                          gr_affine_form *fb) {
    gr_affine_form rest[2];
    int64_t g = 0;
    uint32_t counter = UINT32_MAX;
    const gr_affine_form *in[2] = {a, b};
    for (int side = 0; side < 2; side++) {
        rest[side] = *in[side];
        rest[side].nterms = 0;
        for (uint8_t i = 0; i < in[side]->nterms; i++) {
            const gr_affine_term *t = &in[side]->terms[i];
            bool has = false;
            for (int j = 0; j < t->degree; j++)
                has = has || (t->atoms[j] >= ATOM_IV && !is_uniform_atom(t->atoms[j]));
            if (!has) {
                if (!add_term(&rest[side], t)) return false;
                continue;
            }
            if (t->degree != 1) return false;
            g = gcd64(g, t->coef);
            if (t->atoms[0] < counter) counter = t->atoms[0];
        }
    }
    if (g == 0 || !same_terms(&rest[0], &rest[1]) || (b->constant - a->constant) % g != 0) return false;
    gr_affine_term top = {.coef = g, .degree = 1, .atoms = {counter}};
    if (!add_term(&rest[0], &top)) return false;
    *fa = rest[0];
    *fb = rest[0];
    return true;
}

/* The proof for two forms with the same terms (below): place values, else regions. */
static bool disjoint_like_terms(const gr_affine_form *a, uint32_t a_size, const gr_affine_bounds *a_guard,
                                const gr_affine_form *b, uint32_t b_size, const gr_affine_bounds *b_guard,
                                bool same_block, gr_affine_launch *c);

bool gr_affine_disjoint(const gr_affine_form *a, uint32_t a_size, const gr_affine_bounds *a_guard,
                        const gr_affine_form *b, uint32_t b_size, const gr_affine_bounds *b_guard,
                        bool same_block, gr_affine_launch *c) {
    if (!a->known || !b->known || a->base != b->base || a->base_index != b->base_index) return false;
    if (a->base != (same_block ? GR_AFFINE_BASE_SHARED : GR_AFFINE_BASE_PARAM)) return false;
    if (!same_block && (gr_affine_has_uniform(a) || gr_affine_has_uniform(b))) return false;
    gr_affine_form la = *a, lb = *b, fa, fb;
    if (same_block && !same_terms(a, b)) {
        lift_pinned(&la, a_guard, b);
        lift_pinned(&lb, b_guard, a);
    }
    if (same_terms(&la, &lb) && disjoint_like_terms(&la, a_size, a_guard, &lb, b_size, b_guard, same_block, c))
        return true;
    if (fold_counters(&la, &lb, &fa, &fb) &&
        disjoint_like_terms(&fa, a_size, a_guard, &fb, b_size, b_guard, same_block, c))
        return true;
    return same_block && apart_by_bounds(a, a_size, a_guard, b, b_size, b_guard);
}

static bool disjoint_like_terms(const gr_affine_form *a, uint32_t a_size, const gr_affine_bounds *a_guard,
                                const gr_affine_form *b, uint32_t b_size, const gr_affine_bounds *b_guard,
                                bool same_block, gr_affine_launch *c) {
    gr_affine_launch cond;
    gr_affine_launch_any(&cond);
    digit digits[GR_AFFINE_MAX_TERMS];
    int nd = 0;
    bool seen[ATOM_NCTAID + 3] = {false};
    for (uint8_t i = 0; i < a->nterms; i++) {
        const gr_affine_term *t = &a->terms[i];
        digit d = {.var = UINT32_MAX, .coef = t->coef < 0 ? -t->coef : t->coef, .range = -1};
        int varying = 0;
        bool uniform = false;
        for (int j = 0; j < t->degree; j++) {
            uint32_t at = t->atoms[j];
            bool thread = at < ATOM_NTID || (!same_block && at >= ATOM_CTAID && at < ATOM_NCTAID);
            bool counter = at >= ATOM_IV && !is_uniform_atom(at);
            if (thread || counter) {
                varying++;
                d.var = at;
            } else if (at < ATOM_IV) {
                d.launch[d.nlaunch++] = at; /* ntid, nctaid; ctaid inside one block */
            } else {
                uniform = true; /* of any sign: not a place value */
            }
        }
        if (varying == 0) continue; /* the same for both threads */
        if (varying > 1 || uniform) return false;
        if (d.var < ATOM_IV) {
            if (seen[d.var]) return false;
            seen[d.var] = true;
            d.range = (int32_t)(d.var < ATOM_NTID ? ATOM_NTID + d.var : ATOM_NCTAID + (d.var - ATOM_CTAID));
        }
        for (int x = 0; x < nd; x++)
            if (digits[x].var == d.var) return false;
        digits[nd++] = d;
    }
    for (int i = 1; i < nd; i++) /* sort: smallest place value first, counters last */
        for (int j = i; j > 0 && digit_order(&digits[j - 1], &digits[j]) > 0; j--) {
            digit t = digits[j];
            digits[j] = digits[j - 1];
            digits[j - 1] = t;
        }
    int64_t delta = b->constant - a->constant;
    if (delta < 0) delta = -delta;
    uint32_t size = a_size > b_size ? a_size : b_size;
    gr_affine_launch any = cond;
    bool apart = apart_by_place_values(digits, nd, same_block, delta, size, &cond);
    /* Regions: each set lies in a translate of the unguarded one, so try each access with and
     * without its guard's shift (the shift helps the access above the other); keep the proof
     * that allows the most launches. */
    int64_t shift_a = guard_shift(a, a_guard), shift_b = guard_shift(b, b_guard);
    for (int combo = 0; combo < 4; combo++) {
        int64_t sa = combo & 1 ? shift_a : 0, sb = combo & 2 ? shift_b : 0;
        if ((combo & 1 && !sa) || (combo & 2 && !sb)) continue;
        int64_t d = (b->constant + sb) - (a->constant + sa);
        gr_affine_launch r = any;
        if (!apart_by_regions(digits, nd, d < 0 ? -d : d, size, &r)) continue;
        if (!apart || launch_wider(&r, &cond)) cond = r;
        apart = true;
    }
    if (!apart) return false;
    for (int d = 0; d < 3; d++) {
        if (cond.max_ntid[d] < c->max_ntid[d]) c->max_ntid[d] = cond.max_ntid[d];
        if (cond.max_nctaid[d] < c->max_nctaid[d]) c->max_nctaid[d] = cond.max_nctaid[d];
    }
    return true;
}

/* ---- naming (facts) ---------------------------------------------------------------------------- */

void gr_affine_atom_name(const gr_affine_kernel *k, uint32_t atom, char *buf, size_t n) {
    static const char *const dims = "xyz";
    static const char *const sregs[] = {"tid", "ntid", "ctaid", "nctaid"};
    if (atom < ATOM_IV) {
        uint32_t kind = atom / 3, d = atom % 3;
        if (kind < 4) snprintf(buf, n, "%s.%c", sregs[kind], dims[d]);
        else snprintf(buf, n, "?");
    } else if (is_uniform_atom(atom)) {
        int32_t r = (int32_t)(atom - ATOM_UNIFORM);
        snprintf(buf, n, "uniform(%s)", r < k->nregs && k->fn->regs[r].name ? k->fn->regs[r].name : "?");
    } else {
        int32_t r = (int32_t)(atom - ATOM_IV) % (k->nregs ? k->nregs : 1);
        snprintf(buf, n, "iter(%s)", k->fn->regs[r].name ? k->fn->regs[r].name : "?");
    }
}

void gr_affine_format(const gr_affine_kernel *k, const gr_affine_form *f, char *buf, size_t n) {
    if (!n) return;
    buf[0] = '\0';
    if (!f->known) {
        snprintf(buf, n, "?");
        return;
    }
    size_t used = 0;
    for (uint8_t t = 0; t < f->nterms && used < n; t++) {
        const gr_affine_term *term = &f->terms[t];
        int64_t c = term->coef;
        const char *sep = t == 0 ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ");
        uint64_t mag = c < 0 ? (uint64_t)0 - (uint64_t)c : (uint64_t)c;
        used += (size_t)snprintf(buf + used, n - used, "%s", sep);
        if (mag != 1 && used < n) used += (size_t)snprintf(buf + used, n - used, "%llu*", (unsigned long long)mag);
        for (int a = 0; a < term->degree && used < n; a++) {
            char name[64];
            gr_affine_atom_name(k, term->atoms[a], name, sizeof name);
            used += (size_t)snprintf(buf + used, n - used, "%s%s", a ? "*" : "", name);
        }
    }
    if (used < n && (f->constant || !f->nterms)) {
        int64_t c = f->constant;
        uint64_t mag = c < 0 ? (uint64_t)0 - (uint64_t)c : (uint64_t)c;
        const char *sep = !f->nterms ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ");
        snprintf(buf + used, n - used, "%s%llu", sep, (unsigned long long)mag);
    }
}

bool gr_affine_mentions_thread(const gr_affine_form *f) {
    for (uint8_t t = 0; f->known && t < f->nterms; t++)
        for (int a = 0; a < f->terms[t].degree; a++)
            if (f->terms[t].atoms[a] < ATOM_NTID ||
                (f->terms[t].atoms[a] >= ATOM_CTAID && f->terms[t].atoms[a] < ATOM_NCTAID))
                return true;
    return false;
}

bool gr_affine_single_sreg(const gr_affine_form *f, uint16_t *sreg, uint8_t *dim) {
    if (!f->known || f->nterms != 1 || f->constant != 0 || f->terms[0].coef != 1 ||
        f->terms[0].degree != 1 || f->terms[0].atoms[0] >= ATOM_IV)
        return false;
    static const uint16_t kinds[4] = {PTX_SREG_TID, PTX_SREG_NTID, PTX_SREG_CTAID, PTX_SREG_NCTAID};
    uint32_t atom = f->terms[0].atoms[0];
    if (atom / 3 >= 4) return false;
    *sreg = kinds[atom / 3];
    *dim = (uint8_t)(atom % 3);
    return true;
}
