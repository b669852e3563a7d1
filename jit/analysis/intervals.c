/* intervals.c — shared-memory loads that cannot race, by barrier intervals (intervals.h).
 *
 * Per function, a summary (may write shared memory; uses something the analysis cannot follow)
 * computed to a fixed point over the call graph. Per kernel, the control-flow graph of its
 * instructions; from the entry and from every unguarded full barrier, a walk that stops at full
 * barriers collects the interval's loads and whether it writes. A load in any interval that
 * writes keeps its check. */
#include "jit/analysis/intervals.h"

#include "jit/analysis/cfg.h"
#include "jit/analysis/uniform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum node_kind {
    NODE_PLAIN,   /* nothing the analysis cares about */
    NODE_BARRIER, /* an unguarded full barrier: cuts intervals */
    NODE_WRITE,   /* may write shared memory */
    NODE_LOAD,    /* a plain ld.shared: a candidate */
    NODE_ATOMIC,  /* a relaxed atom/red.shared: a write, and a candidate among atomics only */
    NODE_UNSAFE,  /* the kernel is left alone */
} node_kind;

typedef struct fn_summary {
    bool writes_shared;
    bool reads_shared; /* may read shared memory (any load that is shared or generic) */
    bool unsafe;
} fn_summary;

/* Bodiless functions NVRTC's output may call that never touch a block's shared memory. */
static bool runtime_extern(const char *name) {
    static const char *const known[] = {"vprintf", "malloc", "free", "__assertfail"};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (strcmp(name, known[i]) == 0) return true;
    return false;
}

static node_kind classify_call(const ptx_module *m, const ptx_insn *x, const fn_summary *sums) {
    for (uint32_t k = 0; k < x->noperands; k++) {
        const ptx_operand *o = &x->operands[k];
        if (o->kind == PTX_OPND_REG) return NODE_UNSAFE; /* indirect */
        if (o->kind != PTX_OPND_SYMBOL) continue;
        int32_t fi = ptx_module_find_function(m, o->u.symbol);
        if (fi < 0) return NODE_UNSAFE;
        if (!m->functions[fi].has_body) return runtime_extern(o->u.symbol) ? NODE_PLAIN : NODE_UNSAFE;
        if (sums[fi].unsafe) return NODE_UNSAFE;
        return sums[fi].writes_shared ? NODE_WRITE : NODE_PLAIN;
    }
    return NODE_UNSAFE;
}

/* The same reading of barrier forms as the instrumenter's (a count operand, bar.red's operand
 * layout), so that "full" means what the backends' divergence checks count. */
static node_kind classify_barrier(const ptx_insn *x) {
    if (x->subop == PTX_SUBOP_WARP) return NODE_PLAIN; /* bar.warp.sync */
    int count_index = 1, nargs = x->noperands;
    if (x->subop == PTX_SUBOP_RED) {
        count_index = 2;
        nargs = x->noperands - 1;
    } else if (x->subop != PTX_SUBOP_NONE || !(x->flags & PTX_F_SYNC)) {
        return NODE_UNSAFE; /* bar.arrive, or a form the runtime does not judge */
    }
    if (x->scope == PTX_SCOPE_CLUSTER || count_index < nargs) return NODE_UNSAFE;
    return x->guard_reg >= 0 ? NODE_PLAIN : NODE_BARRIER;
}

static node_kind classify(const ptx_module *m, const ptx_insn *x, const fn_summary *sums) {
    if (x->unknown) return NODE_UNSAFE;
    switch (x->op) {
    case PTX_OP_BAR:
    case PTX_OP_BARRIER: return classify_barrier(x);
    case PTX_OP_CALL: return classify_call(m, x, sums);
    case PTX_OP_CP_ASYNC:
    case PTX_OP_BRX: return NODE_UNSAFE;
    default: break;
    }
    if (!(ptx_opcode_class((ptx_opcode)x->op) & PTX_OPC_MEMORY)) return NODE_PLAIN;
    if (x->space == PTX_SPACE_SHARED_CLUSTER) return NODE_UNSAFE;
    bool shared_or_generic = x->space == PTX_SPACE_SHARED || x->space == PTX_SPACE_NONE;
    if (!shared_or_generic) return NODE_PLAIN;
    if ((ptx_opcode_class((ptx_opcode)x->op) & PTX_OPC_ATOMIC) && x->space == PTX_SPACE_SHARED &&
        (x->sem == PTX_SEM_NONE || x->sem == PTX_SEM_RELAXED) && ptx_insn_access_size(x) > 0)
        return NODE_ATOMIC;
    if (ptx_opcode_class((ptx_opcode)x->op) & (PTX_OPC_WRITES | PTX_OPC_ATOMIC)) return NODE_WRITE;
    if (x->op == PTX_OP_LD && x->space == PTX_SPACE_SHARED &&
        (x->sem == PTX_SEM_NONE || x->sem == PTX_SEM_WEAK))
        return NODE_LOAD;
    return NODE_PLAIN;
}

/* Whether `x` may read shared memory: a shared or generic load (atomics included), or a call
 * whose callee may. */
static bool reads_shared(const ptx_module *m, const ptx_insn *x, const fn_summary *sums) {
    if (x->op == PTX_OP_CALL) {
        for (uint32_t k = 0; k < x->noperands; k++) {
            const ptx_operand *o = &x->operands[k];
            if (o->kind != PTX_OPND_SYMBOL) continue;
            int32_t fi = ptx_module_find_function(m, o->u.symbol);
            return fi >= 0 && m->functions[fi].has_body && sums[fi].reads_shared;
        }
        return false;
    }
    if (!(ptx_opcode_class((ptx_opcode)x->op) & PTX_OPC_MEMORY)) return false;
    if (x->space != PTX_SPACE_SHARED && x->space != PTX_SPACE_NONE) return false;
    return (ptx_opcode_class((ptx_opcode)x->op) & (PTX_OPC_READS | PTX_OPC_ATOMIC)) != 0;
}

/* Summaries of every function, to a fixed point (flags only ever turn on). */
static void summarize(const ptx_module *m, fn_summary *sums) {
    for (bool changed = true; changed;) {
        changed = false;
        for (int32_t fi = 0; fi < m->nfunctions; fi++) {
            const ptx_function *fn = &m->functions[fi];
            fn_summary s = sums[fi];
            for (int32_t k = 0; k < fn->nstmts && !s.unsafe; k++) {
                if (fn->stmts[k].kind != PTX_STMT_INSN) continue;
                const ptx_insn *x = fn->stmts[k].insn;
                node_kind kind = classify(m, x, sums);
                if (kind == NODE_UNSAFE) s.unsafe = true;
                if (kind == NODE_WRITE || kind == NODE_ATOMIC) s.writes_shared = true;
                if (reads_shared(m, x, sums)) s.reads_shared = true;
            }
            if (s.unsafe != sums[fi].unsafe || s.writes_shared != sums[fi].writes_shared ||
                s.reads_shared != sums[fi].reads_shared) {
                sums[fi] = s;
                changed = true;
            }
        }
    }
}

/* One kernel's graph and what each node does to shared memory (node_kind). */
typedef struct kernel_cfg {
    gr_cfg cfg;
    uint8_t *kind;
} kernel_cfg;

static void cfg_free(kernel_cfg *g) {
    gr_cfg_free(&g->cfg);
    free(g->kind);
}

/* False with *oom clear when the kernel must be left alone (an unsafe node, an unknown label). */
static bool cfg_build(const ptx_module *m, const ptx_function *fn, const fn_summary *sums,
                      kernel_cfg *g, bool *oom) {
    g->kind = NULL;
    if (!gr_cfg_build(fn, &g->cfg, oom)) return false;
    g->kind = malloc(g->cfg.n ? g->cfg.n : 1);
    if (!g->kind) {
        *oom = true;
        return false;
    }
    bool ok = true;
    for (uint32_t i = 0; i < g->cfg.n; i++) {
        g->kind[i] = (uint8_t)classify(m, g->cfg.insn[i], sums);
        if (g->kind[i] == NODE_UNSAFE) ok = false;
    }
    return ok;
}

/* How a node touches shared memory, for the private-access proof. */
typedef enum shared_role { ROLE_NONE, ROLE_READ, ROLE_WRITE } shared_role;

typedef struct shared_access {
    uint8_t role;       /* shared_role */
    bool candidate;     /* a plain ld/st.shared whose check may go */
    bool bad;           /* some pair in some interval is not proven apart */
    uint32_t size;
    gr_affine_form form; /* base SHARED and known, or anything else: may touch any array */
    gr_affine_bounds guard; /* what the branches above it say about the threads making it */
    gr_affine_launch launch;
    /* Made behind `l > i` with l = i ^ J (a bitonic step): the address is rest + coef*i
     * (side 0, i has J's bit clear) or rest + coef*l (side 1, J's bit set). */
    bool xor_pair;
    uint8_t xor_side;
    int64_t xor_bit, xor_coef;
    gr_affine_form xor_rest;
} shared_access;

typedef struct walk {
    uint32_t *stamp;  /* interval number + 1 that last visited a node */
    uint32_t *stack;
    uint32_t *loads;  /* the current interval's loads */
    uint32_t *accs;   /* the current interval's shared accesses */
    uint8_t *noisy;   /* a load in some interval that writes; an atomic in some interval with
                       * a plain shared access or an atomic of another size */
    uint8_t *reached; /* a load or atomic some interval reaches */
    uint8_t *plain;   /* a node that may touch shared memory other than by a relaxed atomic */
    uint32_t *atomics; /* the current interval's atomics */
    shared_access *sa; /* per node, NULL without affine forms */
} walk;

/* The two sides of one flip: indices with J's bit clear and with it set never meet. */
static bool opposite_flip_sides(const shared_access *a, const shared_access *b) {
    if (!a->xor_pair || !b->xor_pair || a->xor_side == b->xor_side || a->xor_bit != b->xor_bit ||
        a->xor_coef != b->xor_coef)
        return false;
    const gr_affine_form *ra = &a->xor_rest, *rb = &b->xor_rest;
    int64_t step = a->xor_coef < 0 ? -a->xor_coef : a->xor_coef;
    return ra->base == rb->base && ra->base_index == rb->base_index && ra->nterms == 0 &&
           rb->nterms == 0 && ra->constant == rb->constant && step >= (int64_t)a->size &&
           step >= (int64_t)b->size;
}

/* Whether b cannot touch a's bytes when another thread makes it in the same interval. */
static bool apart(const shared_access *a, const shared_access *b, gr_affine_launch *launch) {
    if (b->form.base == GR_AFFINE_BASE_SHARED && b->form.base_index != a->form.base_index)
        return true; /* another array: addresses stay within the array they derive from */
    if (opposite_flip_sides(a, b)) return true;
    return gr_affine_disjoint(&a->form, a->size, &a->guard, &b->form, b->size, &b->guard, true,
                              launch);
}

static void check_pairs(walk *w, uint32_t nacc) {
    for (uint32_t i = 0; i < nacc; i++) {
        shared_access *a = &w->sa[w->accs[i]];
        if (!a->candidate || a->bad) continue;
        for (uint32_t j = 0; j < nacc && !a->bad; j++) {
            const shared_access *b = &w->sa[w->accs[j]];
            if (a->role != ROLE_WRITE && b->role != ROLE_WRITE) continue;
            if (!apart(a, b, &a->launch)) a->bad = true;
        }
    }
}

/* One interval: from `from` (pushed as is) up to the full barriers; marks its loads noisy
 * when it writes. */
static void walk_interval(const kernel_cfg *g, walk *w, uint32_t number, const uint32_t *from,
                          uint32_t nfrom) {
    uint32_t sp = 0, nloads = 0, nacc = 0, natomics = 0;
    bool writes = false, plain = false;
    int atomic_size = 0; /* 0: none yet; -1: two sizes */
    for (uint32_t i = 0; i < nfrom; i++) w->stack[sp++] = from[i];
    while (sp) {
        uint32_t v = w->stack[--sp];
        if (w->stamp[v] == number + 1) continue;
        w->stamp[v] = number + 1;
        if (g->kind[v] == NODE_BARRIER) continue;
        if (g->kind[v] == NODE_WRITE || g->kind[v] == NODE_ATOMIC) writes = true;
        if (g->kind[v] == NODE_LOAD) w->loads[nloads++] = v;
        if (w->plain[v]) plain = true;
        if (g->kind[v] == NODE_ATOMIC) {
            int size = ptx_insn_access_size(g->cfg.insn[v]);
            atomic_size = atomic_size == 0 || atomic_size == size ? size : -1;
            w->atomics[natomics++] = v;
        }
        if (w->sa && w->sa[v].role != ROLE_NONE) w->accs[nacc++] = v;
        uint32_t next[2], nn = gr_cfg_successors(&g->cfg, v, next);
        for (uint32_t k = 0; k < nn; k++)
            if (w->stamp[next[k]] != number + 1) w->stack[sp++] = next[k];
    }
    for (uint32_t i = 0; i < nloads; i++) {
        w->reached[w->loads[i]] = 1;
        if (writes) w->noisy[w->loads[i]] = 1;
    }
    /* Relaxed atomics of one size on shared memory are morally strong with each other: with
     * no other shared access in the interval, nothing they do can race (a barrier orders them
     * with every other interval's accesses). */
    for (uint32_t i = 0; i < natomics; i++) {
        w->reached[w->atomics[i]] = 1;
        if (plain || atomic_size < 0) w->noisy[w->atomics[i]] = 1;
    }
    if (w->sa) check_pairs(w, nacc);
}

/* Narrows *out by a branch condition; a bound on a block-uniform value counts only when the
 * setp read it in the epoch of node `at`. */
static void note_guard(gr_affine_kernel *ak, gr_uniform *u, uint32_t at, int32_t pred_reg, bool value,
                       gr_affine_bounds *out) {
    gr_affine_bounds before = *out;
    const ptx_insn *setp = NULL;
    if (gr_affine_guard_narrow(ak, pred_reg, value, out, &setp) && setp &&
        !(u && gr_uniform_current_def(u, at, setp)))
        *out = before;
}

/* The bounds on %tid wherever node i runs: its own guard, and the conditions of the branches
 * along the chain of single predecessors above it (`if (tid >= d) ... s[tid - d]`). */
static void guard_bounds(const kernel_cfg *g, gr_affine_kernel *ak, gr_uniform *u,
                         const uint32_t *npred, const uint32_t *pred, uint32_t i,
                         gr_affine_bounds *out) {
    memset(out, 0, sizeof *out);
    const ptx_insn *x = g->cfg.insn[i];
    if (x->guard_reg >= 0) note_guard(ak, u, i, x->guard_reg, !x->guard_negated, out);
    uint32_t at = i;
    for (int steps = 0; steps < 512 && npred[at] == 1; steps++) {
        uint32_t p = pred[at];
        const ptx_insn *b = g->cfg.insn[p];
        if (b->op == PTX_OP_BRA && b->guard_reg >= 0 && g->cfg.target[p] != p + 1) {
            bool taken = g->cfg.target[p] == at;
            note_guard(ak, u, i, b->guard_reg, taken != b->guard_negated, out);
        }
        at = p;
    }
}

/* What node `x` does to shared memory (sa->role), and whether it is a candidate. */
static void classify_shared(const ptx_module *m, const kernel_cfg *g, gr_affine_kernel *ak,
                            const fn_summary *sums, uint32_t i, shared_access *sa) {
    const ptx_insn *x = g->cfg.insn[i];
    memset(sa, 0, sizeof *sa);
    gr_affine_launch_any(&sa->launch);
    sa->form.base = GR_AFFINE_BASE_UNKNOWN;
    if (x->op == PTX_OP_CALL) {
        if (g->kind[i] == NODE_WRITE || g->kind[i] == NODE_ATOMIC) sa->role = ROLE_WRITE;
        else if (reads_shared(m, x, sums)) sa->role = ROLE_READ;
        return;
    }
    uint32_t cls = ptx_opcode_class((ptx_opcode)x->op);
    if (!(cls & PTX_OPC_MEMORY) || (x->space != PTX_SPACE_SHARED && x->space != PTX_SPACE_NONE))
        return;
    sa->form = gr_affine_address(ak, x);
    if (x->space == PTX_SPACE_NONE && (sa->form.base == GR_AFFINE_BASE_PARAM ||
                                       sa->form.base == GR_AFFINE_BASE_OTHER))
        return; /* a generic access to global or local memory */
    sa->role = (cls & (PTX_OPC_WRITES | PTX_OPC_ATOMIC)) ? ROLE_WRITE : ROLE_READ;
    int size = ptx_insn_access_size(x);
    sa->size = size > 0 ? (uint32_t)size : 0;
    const gr_affine_array *arr = sa->form.base == GR_AFFINE_BASE_SHARED
                                     ? gr_affine_array_at(ak, sa->form.base_index)
                                     : NULL;
    sa->candidate = (x->op == PTX_OP_LD || x->op == PTX_OP_ST) && x->space == PTX_SPACE_SHARED &&
                    (x->sem == PTX_SEM_NONE || x->sem == PTX_SEM_WEAK) && sa->form.known &&
                    arr && sa->size > 0 && arr->bytes >= sa->size;
}

/* Whether `x` writes register r. */
static bool writes_reg(const ptx_insn *x, int32_t r) {
    if (!x->noperands) return false;
    const ptx_operand *o = &x->operands[0];
    if (o->kind == PTX_OPND_REG)
        return o->u.reg == r || (o->pair_next && x->noperands > 1 &&
                                 x->operands[1].kind == PTX_OPND_REG && x->operands[1].u.reg == r);
    if (o->kind == PTX_OPND_VEC || o->kind == PTX_OPND_LIST)
        for (uint32_t i = 0; i < o->u.list.nelems; i++)
            if (o->u.list.elems[i].kind == PTX_OPND_REG && o->u.list.elems[i].u.reg == r) return true;
    return false;
}

#define FLIP_CHAIN 64

typedef struct flip_walk {
    const kernel_cfg *g;
    gr_affine_kernel *ak;
    gr_affine_xor fact;
    const uint32_t *chain; /* the nodes between the xor and the access */
    int n;
} flip_walk;

static bool on_chain(const flip_walk *f, const ptx_insn *d) {
    for (int k = 0; k < f->n; k++)
        if (f->g->cfg.insn[f->chain[k]] == d) return true;
    return false;
}

/* Whether register r, as the access reads it, sees i and l as they are at the access: it is
 * one of them, or computed from such registers between the xor and the access, or computed
 * elsewhere from values that do not follow i's updates. */
static bool reads_current_flip(const flip_walk *f, int32_t r, int depth) {
    if (r == f->fact.index_reg || r == f->fact.flipped_reg) return true;
    if (depth > 12) return false;
    uint32_t nd = 0;
    const ptx_insn *const *defs = gr_affine_defs(f->ak, r, &nd);
    if (nd == 1 && on_chain(f, defs[0])) {
        const ptx_insn *d = defs[0];
        for (uint8_t o = 1; o < d->noperands; o++) {
            const ptx_operand *op = &d->operands[o];
            if (op->kind == PTX_OPND_REG && !reads_current_flip(f, op->u.reg, depth + 1)) return false;
            if (op->kind == PTX_OPND_ADDR && op->addr_base == PTX_ADDR_REG &&
                !reads_current_flip(f, op->addr_reg, depth + 1))
                return false;
        }
        return true;
    }
    /* Defined before the xor: its form must not move with i (an induction counter of i). */
    gr_affine_form form = gr_affine_register(f->ak, r);
    gr_affine_form index = gr_affine_register(f->ak, f->fact.index_reg);
    if (!form.known || !index.known) return false;
    for (uint8_t t = 0; t < index.nterms; t++)
        for (int a = 0; a < index.terms[t].degree; a++)
            for (uint8_t u = 0; u < form.nterms; u++)
                for (int b = 0; b < form.terms[u].degree; b++)
                    if (form.terms[u].atoms[b] == index.terms[t].atoms[a] &&
                        gr_affine_atom_is_counter(f->ak, index.terms[t].atoms[a]))
                        return false;
    return true;
}

/* A shared access at node `at` behind `l > i`, l = i ^ J (bitonic sorts): with i and l
 * unchanged from the xor down to it, its address is exactly rest + coef*i or rest +
 * coef*(i + J), and the two sides never share an index. */
static void classify_flip(const kernel_cfg *g, gr_affine_kernel *ak, const uint32_t *npred,
                          const uint32_t *pred, uint32_t at, shared_access *sa) {
    const ptx_insn *x = g->cfg.insn[at];
    if (sa->role == ROLE_NONE || (x->op != PTX_OP_LD && x->op != PTX_OP_ST) ||
        x->space != PTX_SPACE_SHARED)
        return;
    uint32_t chain[FLIP_CHAIN];
    int n = 0, guard_at = -1, setp_at = -1;
    int32_t guard_pred = -1;
    gr_affine_xor fact;
    bool found = false;
    for (uint32_t v = at; n < FLIP_CHAIN && npred[v] == 1 && !found; v = pred[v]) {
        uint32_t p = pred[v];
        const ptx_insn *b = g->cfg.insn[p];
        chain[n++] = p;
        if (guard_at < 0 && b->op == PTX_OP_BRA && b->guard_reg >= 0 && g->cfg.target[p] != p + 1 &&
            gr_affine_xor_guard(ak, b->guard_reg, (g->cfg.target[p] == v) != b->guard_negated, &fact)) {
            guard_at = n - 1;
            guard_pred = b->guard_reg;
            continue;
        }
        if (guard_at < 0) continue;
        if (b->op == PTX_OP_SETP && writes_reg(b, guard_pred)) setp_at = n - 1;
        if (b->op == PTX_OP_XOR && writes_reg(b, fact.flipped_reg)) found = true;
    }
    if (!found || setp_at < 0) return;
    int xor_at = n - 1;
    for (int k = 0; k < xor_at; k++) /* i and l stay as the xor and the setp saw them */
        if (writes_reg(g->cfg.insn[chain[k]], fact.index_reg) ||
            writes_reg(g->cfg.insn[chain[k]], fact.flipped_reg))
            return;
    flip_walk f = {g, ak, fact, chain, xor_at};
    const ptx_operand *addr = ptx_insn_address(x);
    if (!addr || addr->addr_base != PTX_ADDR_REG || !reads_current_flip(&f, addr->addr_reg, 0)) return;
    int64_t coef = 0;
    gr_affine_form rest;
    uint8_t side = 1;
    if (!gr_affine_address_over(ak, x, fact.flipped_reg, &coef, &rest)) {
        side = 0;
        if (!gr_affine_address_over(ak, x, fact.index_reg, &coef, &rest)) return;
    }
    if (rest.base != GR_AFFINE_BASE_SHARED) return;
    gr_affine_form index = gr_affine_register(ak, fact.index_reg);
    gr_affine_form exact = gr_affine_scaled(ak, &rest, coef, &index, side ? fact.bit : 0);
    if (!exact.known) return;
    sa->form = exact;
    sa->xor_pair = true;
    sa->xor_side = side;
    sa->xor_bit = fact.bit;
    sa->xor_coef = coef;
    sa->xor_rest = rest;
    const gr_affine_array *arr = gr_affine_array_at(ak, exact.base_index);
    sa->candidate = (x->sem == PTX_SEM_NONE || x->sem == PTX_SEM_WEAK) && arr && sa->size > 0 &&
                    arr->bytes >= sa->size;
}

/* An address read through block-uniform values of another epoch says nothing: forget it. */
static void keep_current(const kernel_cfg *g, gr_uniform *u, uint32_t i, shared_access *sa) {
    if (!gr_affine_has_uniform(&sa->form)) return;
    const ptx_operand *a = ptx_insn_address(g->cfg.insn[i]);
    if (a && a->addr_base == PTX_ADDR_REG && gr_uniform_current(u, i, a->addr_reg)) return;
    sa->form.known = false;
    sa->candidate = false;
}

static bool add_private(gr_quiet_loads *q, const gr_private_access *p) {
    if ((q->npriv & (q->npriv - 1)) == 0) { /* grow at powers of two */
        void *n = realloc(q->priv, (q->npriv ? 2u * q->npriv : 1u) * sizeof *q->priv);
        if (!n) return false;
        q->priv = n;
    }
    q->priv[q->npriv++] = *p;
    return true;
}

/* Global accesses through one parameter that no two threads can make to one byte. Every global
 * or generic access of the kernel must have a known pointer (a parameter, a module variable or
 * shared memory), and a kernel calling a function with a body is left alone. */
static bool find_private_global(const ptx_module *m, const ptx_function *fn, const kernel_cfg *g,
                                gr_affine_kernel *ak, gr_quiet_loads *q) {
    uint32_t n = g->cfg.n;
    gr_affine_form *forms = malloc((n ? n : 1) * sizeof *forms);
    if (!forms) return false;
    uint32_t written = 0;
    bool usable = fn->nparams <= 32;
    for (uint32_t i = 0; i < n && usable; i++) {
        const ptx_insn *x = g->cfg.insn[i];
        forms[i].base = GR_AFFINE_BASE_NONE;
        if (x->op == PTX_OP_CALL) {
            for (uint32_t k = 0; k < x->noperands; k++)
                if (x->operands[k].kind == PTX_OPND_SYMBOL) {
                    int32_t fi = ptx_module_find_function(m, x->operands[k].u.symbol);
                    if (fi < 0 || m->functions[fi].has_body) usable = false;
                    break;
                }
            continue;
        }
        uint32_t cls = ptx_opcode_class((ptx_opcode)x->op);
        if (!(cls & PTX_OPC_MEMORY) || (x->space != PTX_SPACE_GLOBAL && x->space != PTX_SPACE_NONE))
            continue;
        forms[i] = gr_affine_address(ak, x);
        uint8_t b = forms[i].base;
        if (b == GR_AFFINE_BASE_NONE || b == GR_AFFINE_BASE_UNKNOWN ||
            (x->space == PTX_SPACE_GLOBAL && b != GR_AFFINE_BASE_PARAM && b != GR_AFFINE_BASE_OTHER))
            usable = false;
        if (b != GR_AFFINE_BASE_PARAM) continue;
        if (cls & (PTX_OPC_WRITES | PTX_OPC_ATOMIC)) written |= 1u << forms[i].base_index;
    }
    uint32_t proven = 0;
    gr_affine_launch launch[32];
    for (uint32_t p = 0; usable && p < 32; p++) {
        if (!(written & (1u << p))) continue;
        gr_affine_launch_any(&launch[p]);
        bool ok = true;
        for (uint32_t i = 0; i < n && ok; i++) {
            if (forms[i].base != GR_AFFINE_BASE_PARAM || forms[i].base_index != (int32_t)p) continue;
            uint32_t ci = ptx_opcode_class((ptx_opcode)g->cfg.insn[i]->op);
            int si = ptx_insn_access_size(g->cfg.insn[i]);
            for (uint32_t j = i; j < n && ok; j++) {
                if (forms[j].base != GR_AFFINE_BASE_PARAM || forms[j].base_index != (int32_t)p) continue;
                uint32_t cj = ptx_opcode_class((ptx_opcode)g->cfg.insn[j]->op);
                if (!((ci | cj) & (PTX_OPC_WRITES | PTX_OPC_ATOMIC))) continue;
                int sj = ptx_insn_access_size(g->cfg.insn[j]);
                ok = si > 0 && sj > 0 &&
                     gr_affine_disjoint(&forms[i], (uint32_t)si, NULL, &forms[j], (uint32_t)sj, NULL,
                                        false, &launch[p]);
            }
        }
        if (ok) proven |= 1u << p;
    }
    bool fine = true;
    for (uint32_t i = 0; i < n && fine && proven; i++) {
        const ptx_insn *x = g->cfg.insn[i];
        if (forms[i].base != GR_AFFINE_BASE_PARAM || !(proven & (1u << forms[i].base_index))) continue;
        if ((x->op != PTX_OP_LD && x->op != PTX_OP_ST) || (x->sem != PTX_SEM_NONE && x->sem != PTX_SEM_WEAK))
            continue;
        gr_private_access pa = {.id = x->id, .shared = false, .param = (uint32_t)forms[i].base_index,
                                .launch = launch[forms[i].base_index]};
        fine = add_private(q, &pa);
    }
    if (fine && proven) {
        void *nk = realloc(q->priv_kernels, (q->npriv_kernels + 1u) * sizeof *q->priv_kernels);
        if (!nk) fine = false;
        else {
            q->priv_kernels = nk;
            gr_private_kernel *pk = &q->priv_kernels[q->npriv_kernels++];
            snprintf(pk->name, sizeof pk->name, "%s", fn->name);
            pk->params = proven;
        }
    }
    free(forms);
    return fine;
}

static bool analyze_kernel(const ptx_module *m, const ptx_function *fn, const fn_summary *sums,
                           const kernel_cfg *g, gr_quiet_loads *q) {
    walk w = {0};
    size_t cells = g->cfg.n ? g->cfg.n : 1;
    w.stamp = calloc(cells, sizeof *w.stamp);
    /* a walk pushes its starts (at most 2) and at most 2 successors per node it expands */
    w.stack = malloc((2 * cells + 2) * sizeof *w.stack);
    w.loads = malloc(cells * sizeof *w.loads);
    w.accs = malloc(cells * sizeof *w.accs);
    w.noisy = calloc(cells, 1);
    w.reached = calloc(cells, 1);
    w.plain = calloc(cells, 1);
    w.atomics = malloc(cells * sizeof *w.atomics);
    bool ok = w.stamp && w.stack && w.loads && w.accs && w.noisy && w.reached && w.plain && w.atomics;
    for (uint32_t i = 0; ok && i < g->cfg.n; i++)
        w.plain[i] = g->kind[i] == NODE_WRITE || g->kind[i] == NODE_LOAD ||
                     (g->kind[i] != NODE_ATOMIC && reads_shared(m, g->cfg.insn[i], sums));
    gr_affine_kernel *ak = ok ? gr_affine_kernel_new(m, fn) : NULL;
    if (ak) {
        w.sa = malloc(cells * sizeof *w.sa);
        uint32_t *npred = malloc(cells * sizeof *npred), *pred = malloc(cells * sizeof *pred);
        uint8_t *cut = malloc(cells);
        ok = w.sa && npred && pred && cut;
        if (ok) gr_cfg_predecessors(&g->cfg, npred, pred);
        for (uint32_t i = 0; ok && i < g->cfg.n; i++) cut[i] = g->kind[i] == NODE_BARRIER;
        gr_uniform *u = ok ? gr_uniform_find(&g->cfg, cut, npred, pred, ak) : NULL;
        ok = ok && u;
        for (uint32_t i = 0; ok && i < g->cfg.n; i++) {
            classify_shared(m, g, ak, sums, i, &w.sa[i]);
            if (w.sa[i].role == ROLE_NONE) continue;
            guard_bounds(g, ak, u, npred, pred, i, &w.sa[i].guard);
            classify_flip(g, ak, npred, pred, i, &w.sa[i]);
            keep_current(g, u, i, &w.sa[i]);
        }
        gr_uniform_free(u);
        free(cut);
        free(npred);
        free(pred);
    }
    if (ok && g->cfg.n) {
        uint32_t number = 0, entry = 0;
        walk_interval(g, &w, number++, &entry, 1);
        for (uint32_t b = 0; b < g->cfg.n; b++) {
            if (g->kind[b] != NODE_BARRIER) continue;
            uint32_t next[2], nn = gr_cfg_successors(&g->cfg, b, next);
            walk_interval(g, &w, number++, next, nn);
        }
        for (uint32_t i = 0; i < g->cfg.n; i++) {
            if ((g->kind[i] != NODE_LOAD && g->kind[i] != NODE_ATOMIC) || !w.reached[i] || w.noisy[i])
                continue;
            uint32_t id = g->cfg.insn[i]->id;
            if (id >= q->nids) continue;
            q->bits[id >> 3] |= (uint8_t)(1u << (id & 7u));
            q->count++;
        }
        for (uint32_t i = 0; w.sa && ok && i < g->cfg.n; i++) {
            const shared_access *a = &w.sa[i];
            if (!a->candidate || a->bad || w.stamp[i] == 0 || gr_quiet_load(q, g->cfg.insn[i]->id)) continue;
            const gr_affine_array *arr = gr_affine_array_at(ak, a->form.base_index);
            gr_private_access pa = {.id = g->cfg.insn[i]->id, .shared = true,
                                    .array_bytes = arr->bytes, .array_var = arr->var,
                                    .launch = a->launch};
            snprintf(pa.array, sizeof pa.array, "%s", arr->name);
            if (strlen(arr->name) < sizeof pa.array) ok = add_private(q, &pa);
        }
        if (ok && ak) ok = find_private_global(m, fn, g, ak, q);
    }
    gr_affine_kernel_free(ak);
    free(w.stamp);
    free(w.stack);
    free(w.loads);
    free(w.accs);
    free(w.noisy);
    free(w.reached);
    free(w.plain);
    free(w.atomics);
    free(w.sa);
    return ok;
}

static int private_cmp(const void *a, const void *b) {
    uint32_t x = ((const gr_private_access *)a)->id, y = ((const gr_private_access *)b)->id;
    return x < y ? -1 : x > y;
}

const gr_private_access *gr_private_access_find(const gr_quiet_loads *q, uint32_t id) {
    if (!q || !q->npriv) return NULL;
    gr_private_access key = {.id = id};
    return bsearch(&key, q->priv, q->npriv, sizeof *q->priv, private_cmp);
}

bool gr_quiet_loads_find(const ptx_module *m, gr_quiet_loads *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    out->nids = m->ninsns;
    out->bits = calloc((m->ninsns + 7u) / 8u + 1u, 1);
    fn_summary *sums = calloc(m->nfunctions ? (size_t)m->nfunctions : 1u, sizeof *sums);
    bool ok = out->bits && sums;
    if (ok) summarize(m, sums);
    for (int32_t fi = 0; ok && fi < m->nfunctions; fi++) {
        const ptx_function *fn = &m->functions[fi];
        if (!fn->is_entry || !fn->has_body) continue;
        if (sums[fi].unsafe) {
            out->kernels_left_alone++;
            continue;
        }
        kernel_cfg g;
        bool oom = false;
        if (cfg_build(m, fn, sums, &g, &oom)) ok = analyze_kernel(m, fn, sums, &g, out);
        else if (!oom) out->kernels_left_alone++;
        else ok = false;
        cfg_free(&g);
    }
    free(sums);
    if (ok && out->npriv) qsort(out->priv, out->npriv, sizeof *out->priv, private_cmp);
    if (!ok) {
        gr_quiet_loads_free(out);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory analyzing barrier intervals");
    }
    return true;
}

void gr_quiet_loads_free(gr_quiet_loads *q) {
    free(q->bits);
    free(q->priv);
    free(q->priv_kernels);
    memset(q, 0, sizeof *q);
}
