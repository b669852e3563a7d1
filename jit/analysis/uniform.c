/* uniform.c — block-uniform registers per barrier epoch (uniform.h).
 *
 * Two optimistic fixed points over the registers' definitions: block-wide registers first,
 * then anchored ones (a register stays while all its definitions qualify given the others).
 * Readings of derived registers are checked on demand with, per definition, the set of nodes it
 * reaches only across a full barrier. */
#include "jit/analysis/uniform.h"

#include <stdlib.h>
#include <string.h>

enum { UNI_NONE = 0, UNI_BLOCK, UNI_ANCHORED };
#define DERIVED_DEPTH 16

typedef struct def_node {
    const ptx_insn *insn;
    uint32_t node;
} def_node;

struct gr_uniform {
    const gr_cfg *g;
    const uint8_t *cut;
    const uint32_t *npred, *pred;
    gr_affine_kernel *ak;
    int32_t nregs;
    uint8_t *cls;       /* per register */
    uint8_t *visiting;  /* per register, while a derived reading is checked */
    def_node *nodes;    /* instructions by address, for their nodes */
    uint8_t **across;   /* per node, lazily: what it reaches only across a full barrier */
};

static int def_node_cmp(const void *a, const void *b) {
    const ptx_insn *x = ((const def_node *)a)->insn, *y = ((const def_node *)b)->insn;
    return x < y ? -1 : x > y;
}

static uint32_t node_of(const gr_uniform *u, const ptx_insn *x) {
    def_node key = {x, 0};
    const def_node *hit = bsearch(&key, u->nodes, u->g->n, sizeof *u->nodes, def_node_cmp);
    return hit ? hit->node : UINT32_MAX;
}

/* Values that are the same for every thread of a block at any time. */
static bool uniform_sreg(uint16_t s) {
    return s == PTX_SREG_NTID || s == PTX_SREG_NCTAID || s == PTX_SREG_CTAID ||
           s == PTX_SREG_DYNAMIC_SMEM_SIZE || s == PTX_SREG_TOTAL_SMEM_SIZE;
}

/* An instruction whose one result depends on its operands alone. */
static bool pure(const ptx_insn *x) {
    if (x->unknown || x->guard_reg >= 0 || !x->noperands || x->operands[0].kind != PTX_OPND_REG ||
        x->operands[0].pair_next || x->operands[0].has_component || (x->flags & PTX_F_CC))
        return false;
    switch (x->op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_MUL24: case PTX_OP_MAD:
    case PTX_OP_MAD24: case PTX_OP_SAD: case PTX_OP_DIV: case PTX_OP_REM: case PTX_OP_ABS:
    case PTX_OP_NEG: case PTX_OP_MIN: case PTX_OP_MAX: case PTX_OP_POPC: case PTX_OP_CLZ:
    case PTX_OP_BFIND: case PTX_OP_BREV: case PTX_OP_BFE: case PTX_OP_BFI: case PTX_OP_AND:
    case PTX_OP_OR: case PTX_OP_XOR: case PTX_OP_NOT: case PTX_OP_CNOT: case PTX_OP_LOP3:
    case PTX_OP_SHF: case PTX_OP_SHL: case PTX_OP_SHR: case PTX_OP_PRMT: case PTX_OP_SZEXT:
    case PTX_OP_BMSK: case PTX_OP_MOV: case PTX_OP_CVT: case PTX_OP_SELP: case PTX_OP_SETP:
        return true;
    case PTX_OP_LD: {
        const ptx_operand *a = ptx_insn_address(x);
        return x->space == PTX_SPACE_PARAM && a && a->addr_base == PTX_ADDR_SYMBOL;
    }
    default: return false;
    }
}

/* Whether every source operand of `x` is uniform: registers must be block-wide, or anchored
 * when `anchored_ok`. */
static bool operands_uniform(const gr_uniform *u, const ptx_insn *x, bool anchored_ok) {
    for (uint8_t i = 1; i < x->noperands; i++) {
        const ptx_operand *o = &x->operands[i];
        switch (o->kind) {
        case PTX_OPND_IMM_INT: case PTX_OPND_IMM_F32: case PTX_OPND_IMM_F64: case PTX_OPND_SYMBOL:
            break;
        case PTX_OPND_SREG:
            if (!uniform_sreg(o->u.sreg)) return false;
            break;
        case PTX_OPND_ADDR:
            if (o->addr_base != PTX_ADDR_SYMBOL) return false;
            break;
        case PTX_OPND_REG: {
            if (o->has_component || o->u.reg < 0 || o->u.reg >= u->nregs) return false;
            uint8_t c = u->cls[o->u.reg];
            if (c != UNI_BLOCK && !(anchored_ok && c == UNI_ANCHORED)) return false;
            break;
        }
        default: return false;
        }
    }
    return true;
}

/* The full barrier whose straight run holds node i (UINT32_MAX - 1: the kernel's entry), or
 * UINT32_MAX when another path can reach i. */
#define ANCHOR_ENTRY (UINT32_MAX - 1)
static uint32_t anchor_of(const gr_uniform *u, uint32_t i) {
    for (uint32_t j = i;; j--) {
        if (j == 0) return u->npred[0] == 0 ? ANCHOR_ENTRY : UINT32_MAX;
        uint32_t p = j - 1, next[2];
        if (u->npred[j] != 1 || u->pred[j] != p) return UINT32_MAX;
        if (gr_cfg_successors(u->g, p, next) != 1 || next[0] != j) return UINT32_MAX;
        if (u->cut[p]) return p;
    }
}

static bool defines_anchored(const gr_uniform *u, const ptx_insn *x) {
    return pure(x) && u->cls[x->operands[0].u.reg] == UNI_ANCHORED;
}

/* Whether register r may stay in class `c` given the others. */
static bool qualifies(const gr_uniform *u, int32_t r, uint8_t c) {
    uint32_t ndefs = 0;
    const ptx_insn *const *defs = gr_affine_defs(u->ak, r, &ndefs);
    if (ndefs == 0 || (c == UNI_BLOCK && ndefs != 1)) return false;
    for (uint32_t d = 0; d < ndefs; d++) {
        const ptx_insn *x = defs[d];
        if (!pure(x) || x->operands[0].u.reg != r || !operands_uniform(u, x, c == UNI_ANCHORED))
            return false;
        if (c == UNI_BLOCK) continue;
        uint32_t at = node_of(u, x), anchor = at == UINT32_MAX ? UINT32_MAX : anchor_of(u, at);
        if (anchor == UINT32_MAX) return false;
        if (anchor == ANCHOR_ENTRY) continue; /* nothing read it before */
        for (uint32_t k = anchor + 1; k < at; k++)
            if (!defines_anchored(u, u->g->insn[k])) return false;
    }
    return true;
}

static void settle(gr_uniform *u, uint8_t c) {
    for (int32_t r = 0; r < u->nregs; r++)
        if (u->cls[r] == UNI_NONE) u->cls[r] = c;
    for (bool changed = true; changed;) {
        changed = false;
        for (int32_t r = 0; r < u->nregs; r++)
            if (u->cls[r] == c && !qualifies(u, r, c)) {
                u->cls[r] = UNI_NONE;
                changed = true;
            }
    }
}

/* Atoms stand for values in [0, SMALL_VALUE]: with coefficients the proofs keep small too, an
 * address that reads one cannot wrap around the 32-bit shared window (affine.h takes integers
 * without wrap-around). */
#define SMALL_VALUE ((int64_t)1 << 20)
#define NO_BOUND INT64_MAX

static int64_t operand_bound(gr_uniform *u, const ptx_operand *o, int depth);

/* An upper bound on register r's value, which is at least 0; NO_BOUND when unknown. On a cycle
 * the register contributes nothing: only definitions that cannot grow their operand (shr, and,
 * min, div, rem) may close one, which the caller checks. */
static int64_t reg_bound(gr_uniform *u, int32_t r, int depth) {
    if (r < 0 || r >= u->nregs || depth > DERIVED_DEPTH) return NO_BOUND;
    if (u->visiting[r]) return -1;
    uint32_t ndefs = 0;
    const ptx_insn *const *defs = gr_affine_defs(u->ak, r, &ndefs);
    if (!ndefs) return NO_BOUND;
    u->visiting[r] = 1;
    int64_t most = -1;
    for (uint32_t d = 0; d < ndefs && most != NO_BOUND; d++) {
        const ptx_insn *x = defs[d];
        int64_t a = x->noperands > 1 ? operand_bound(u, &x->operands[1], depth + 1) : NO_BOUND;
        int64_t b = x->noperands > 2 ? operand_bound(u, &x->operands[2], depth + 1) : NO_BOUND;
        const ptx_operand *o2 = x->noperands > 2 ? &x->operands[2] : NULL;
        int64_t imm = o2 && o2->kind == PTX_OPND_IMM_INT && o2->u.imm < 64 ? (int64_t)o2->u.imm : -1;
        bool shrinks = false; /* the result is at most operand 1 */
        int64_t v = NO_BOUND;
        switch (x->op) {
        case PTX_OP_MOV: v = a; break;
        case PTX_OP_CVT:
            v = ptx_type_size((ptx_type)x->type) >= 4 && ptx_type_size((ptx_type)x->type2) >= 4 ? a : NO_BOUND;
            break;
        case PTX_OP_SHR: if (imm >= 0) { v = a < 0 ? a : a >> imm; shrinks = true; } break;
        case PTX_OP_DIV:
        case PTX_OP_REM:
            if (x->type != PTX_TYPE_S32 && x->type != PTX_TYPE_S64) { v = a; shrinks = true; }
            break;
        case PTX_OP_AND: v = a < b ? a : b; shrinks = true; break;
        case PTX_OP_MIN: /* at least 0 only when both are */
            if (a != NO_BOUND && b != NO_BOUND) v = a < b ? a : b;
            shrinks = true;
            break;
        case PTX_OP_SHL: if (imm >= 0 && imm < 20 && a >= 0 && a <= SMALL_VALUE) v = a << imm; break;
        case PTX_OP_ADD:
            if (a >= 0 && b >= 0 && a <= SMALL_VALUE && b <= SMALL_VALUE) v = a + b;
            break;
        default: break;
        }
        if (v < 0 && !shrinks) v = NO_BOUND; /* a cycle through a growing operation */
        if (v > most) most = v;
    }
    u->visiting[r] = 0;
    return most;
}

static int64_t operand_bound(gr_uniform *u, const ptx_operand *o, int depth) {
    switch (o->kind) {
    case PTX_OPND_IMM_INT: return o->u.imm <= (uint64_t)SMALL_VALUE ? (int64_t)o->u.imm : NO_BOUND;
    case PTX_OPND_SREG: return o->u.sreg == PTX_SREG_NTID ? 1024 : NO_BOUND;
    case PTX_OPND_REG: return o->has_component ? NO_BOUND : reg_bound(u, o->u.reg, depth);
    default: return NO_BOUND;
    }
}

gr_uniform *gr_uniform_find(const gr_cfg *g, const uint8_t *cut, const uint32_t *npred,
                            const uint32_t *pred, gr_affine_kernel *ak) {
    gr_uniform *u = calloc(1, sizeof *u);
    if (!u) return NULL;
    u->g = g;
    u->cut = cut;
    u->npred = npred;
    u->pred = pred;
    u->ak = ak;
    u->nregs = gr_affine_register_count(ak);
    size_t nr = (size_t)u->nregs + 1, cells = g->n ? g->n : 1;
    u->cls = calloc(nr, 1);
    u->visiting = calloc(nr, 1);
    u->nodes = malloc(cells * sizeof *u->nodes);
    u->across = calloc(cells, sizeof *u->across);
    uint8_t *atoms = calloc(nr, 1);
    if (!u->cls || !u->visiting || !u->nodes || !u->across || !atoms) {
        free(atoms);
        gr_uniform_free(u);
        return NULL;
    }
    for (uint32_t i = 0; i < g->n; i++) u->nodes[i] = (def_node){g->insn[i], i};
    qsort(u->nodes, g->n, sizeof *u->nodes, def_node_cmp);
    settle(u, UNI_BLOCK);
    settle(u, UNI_ANCHORED);
    /* Atoms only where the form says less (a known form without loop counters stays), and only
     * for small values. */
    for (int32_t r = 0; r < u->nregs; r++) {
        if (u->cls[r] == UNI_NONE) continue;
        gr_affine_form f = gr_affine_register(ak, r);
        bool counters = false;
        for (uint8_t t = 0; f.known && t < f.nterms; t++)
            for (int a = 0; a < f.terms[t].degree; a++)
                counters = counters || gr_affine_atom_is_counter(ak, f.terms[t].atoms[a]);
        int64_t most = (!f.known || counters) ? reg_bound(u, r, 0) : NO_BOUND;
        atoms[r] = most >= 0 && most <= SMALL_VALUE;
    }
    gr_affine_set_uniform(ak, atoms);
    free(atoms);
    return u;
}

void gr_uniform_free(gr_uniform *u) {
    if (!u) return;
    for (uint32_t i = 0; u->across && i < u->g->n; i++) free(u->across[i]);
    free(u->across);
    free(u->cls);
    free(u->visiting);
    free(u->nodes);
    free(u);
}

/* The nodes definition node d reaches by some path that crosses a full barrier and does not
 * pass d again (d itself included when a loop through a barrier brings it back). */
static const uint8_t *across(gr_uniform *u, uint32_t d) {
    if (u->across[d]) return u->across[d];
    const gr_cfg *g = u->g;
    size_t cells = g->n ? g->n : 1;
    uint8_t *near = calloc(cells, 1), *far = calloc(cells, 1);
    uint32_t *stack = malloc(cells * sizeof *stack);
    if (!near || !far || !stack) {
        free(near);
        free(far);
        free(stack);
        return NULL;
    }
    uint32_t sp = 0, next[2], nn = gr_cfg_successors(g, d, next);
    for (uint32_t k = 0; k < nn; k++)
        if (!near[next[k]]) near[next[k]] = 1, stack[sp++] = next[k];
    /* before any barrier: barriers hand their successors to the far side */
    uint32_t *far_stack = malloc(cells * sizeof *far_stack), fsp = 0;
    if (!far_stack) {
        free(near);
        free(far);
        free(stack);
        return NULL;
    }
    while (sp) {
        uint32_t v = stack[--sp];
        if (v == d) continue;
        nn = gr_cfg_successors(g, v, next);
        for (uint32_t k = 0; k < nn; k++) {
            uint8_t *seen = u->cut[v] ? far : near;
            if (seen[next[k]]) continue;
            seen[next[k]] = 1;
            if (u->cut[v]) far_stack[fsp++] = next[k];
            else stack[sp++] = next[k];
        }
    }
    while (fsp) {
        uint32_t v = far_stack[--fsp];
        if (v == d) continue;
        nn = gr_cfg_successors(g, v, next);
        for (uint32_t k = 0; k < nn; k++)
            if (!far[next[k]]) far[next[k]] = 1, far_stack[fsp++] = next[k];
    }
    free(near);
    free(stack);
    free(far_stack);
    u->across[d] = far;
    return far;
}

static bool def_current(gr_uniform *u, uint32_t at, const ptx_insn *x, int depth);

static bool reg_current(gr_uniform *u, uint32_t at, int32_t r, int depth) {
    if (r < 0 || r >= u->nregs) return false;
    if (u->cls[r] != UNI_NONE) return true;
    gr_affine_form f = gr_affine_register(u->ak, r);
    if (!gr_affine_has_uniform(&f)) return true; /* reads nothing that changes with the epoch */
    if (depth > DERIVED_DEPTH) return false;
    if (u->visiting[r]) return true; /* each definition on the cycle is checked where first met */
    u->visiting[r] = 1;
    uint32_t ndefs = 0;
    const ptx_insn *const *defs = gr_affine_defs(u->ak, r, &ndefs);
    bool ok = ndefs > 0;
    for (uint32_t d = 0; d < ndefs && ok; d++) ok = def_current(u, at, defs[d], depth + 1);
    u->visiting[r] = 0;
    return ok;
}

static bool def_current(gr_uniform *u, uint32_t at, const ptx_insn *x, int depth) {
    uint32_t d = node_of(u, x);
    if (d == UINT32_MAX || at >= u->g->n) return false;
    const uint8_t *far = across(u, d);
    if (!far || far[at]) return false;
    for (uint8_t i = 1; i < x->noperands; i++) {
        const ptx_operand *o = &x->operands[i];
        if (o->kind == PTX_OPND_REG && !reg_current(u, d, o->u.reg, depth)) return false;
        if (o->kind == PTX_OPND_ADDR && o->addr_base == PTX_ADDR_REG && !reg_current(u, d, o->addr_reg, depth))
            return false;
        if (o->kind == PTX_OPND_VEC || o->kind == PTX_OPND_LIST) return false;
    }
    return true;
}

bool gr_uniform_current(gr_uniform *u, uint32_t at, int32_t reg) { return reg_current(u, at, reg, 0); }

bool gr_uniform_current_def(gr_uniform *u, uint32_t at, const ptx_insn *def) {
    return def_current(u, at, def, 0);
}
