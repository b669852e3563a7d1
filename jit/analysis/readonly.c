/* readonly.c — address provenance per function (readonly.h).
 *
 * Each instruction is read as a destination (its first operand) and sources (the rest), every
 * register or symbol among them a "token", exactly as a reader of the printed statement sees
 * them: a token's provenance is the register's mask, or for a symbol "not global" (a shared
 * variable, the local depot), a parameter bit (a kernel parameter read by ld.param) or unknown.
 * The masks grow to a fixed point; then every access the instrumenter hooks is judged by the
 * provenance of its address as the hook receives it. */
#include "jit/analysis/readonly.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARAM_BITS 0xffffffffull
#define NOT_GLOBAL (1ull << 62) /* shared or local address */
#define UNKNOWN (1ull << 63)    /* may point anywhere */
#define MAX_TOKENS 16           /* more operands than this: unknown */
#define MAX_ROUNDS 64

/* A register or symbol as one statement names it. */
typedef struct token {
    int32_t reg;        /* >= 0: a register of the function */
    const char *symbol; /* else a symbol (NULL: a special register or an undeclared name) */
    size_t symbol_len;
} token;

typedef struct token_list {
    token t[MAX_TOKENS];
    uint32_t n;
    bool full; /* MAX_TOKENS reached: the reader gives up on the rest */
} token_list;

typedef struct analysis {
    const ptx_module *m;
    const char **shared_names; /* every .shared variable of the module, any function */
    uint32_t nshared;
    const ptx_function *fn;
    uint64_t *mask;            /* per register of fn */
    uint64_t addr32;           /* what the instrumenter's 32-bit address temporary holds */
    gr_readonly *out;
    bool module_off;
    bool oom;
} analysis;

static bool starts_with(const char *s, size_t len, const char *prefix) {
    size_t n = strlen(prefix);
    return len >= n && strncmp(s, prefix, n) == 0;
}

static void push_reg(token_list *l, int32_t reg) {
    if (l->n == MAX_TOKENS) {
        l->full = true;
        return;
    }
    l->t[l->n++] = (token){reg, NULL, 0};
}

static void push_symbol(token_list *l, const char *s, size_t n) {
    if (l->n == MAX_TOKENS) {
        l->full = true;
        return;
    }
    l->t[l->n++] = (token){-1, s, n};
}

/* The tokens of one operand, as its printed form spells them. */
static void operand_tokens(const ptx_operand *o, token_list *l) {
    switch (o->kind) {
    case PTX_OPND_REG:
        /* `%r1.x` is one name no register has */
        if (o->has_component) push_symbol(l, NULL, 0);
        else push_reg(l, o->u.reg);
        break;
    case PTX_OPND_SREG: push_symbol(l, NULL, 0); break;
    case PTX_OPND_SYMBOL: push_symbol(l, o->u.symbol, strlen(o->u.symbol)); break;
    case PTX_OPND_SINK: push_symbol(l, "_", 1); break;
    case PTX_OPND_ADDR:
        if (o->addr_base == PTX_ADDR_REG) push_reg(l, o->addr_reg);
        else if (o->addr_base == PTX_ADDR_SYMBOL) push_symbol(l, o->addr_symbol, strlen(o->addr_symbol));
        break;
    case PTX_OPND_VEC:
    case PTX_OPND_LIST:
    case PTX_OPND_TEX:
        for (uint32_t i = 0; i < o->u.list.nelems; i++) operand_tokens(&o->u.list.elems[i], l);
        break;
    default: break; /* immediates are numbers, never names */
    }
}

/* ---- instructions the IR does not know: read from their text ----------------------------- */

static bool is_name_char(char c) {
    return c == '_' || c == '$' || c == '%' || c == '.' || (c >= '0' && c <= '9') ||
           (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void text_tokens(const ptx_function *fn, const char *s, size_t len, token_list *l) {
    for (size_t i = 0; i < len;) {
        char c = s[i];
        if (c == '%' || c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            size_t j = i;
            while (j < len && is_name_char(s[j])) j++;
            if (l->n == MAX_TOKENS) {
                l->full = true;
                return;
            }
            int32_t reg = -1;
            if (c == '%') {
                char name[64];
                if (j - i < sizeof name) {
                    memcpy(name, s + i, j - i);
                    name[j - i] = '\0';
                    reg = ptx_function_find_reg(fn, name);
                }
                if (reg < 0) push_symbol(l, NULL, 0); /* a special register */
                else push_reg(l, reg);
            } else {
                push_symbol(l, s + i, j - i);
            }
            i = j;
        } else if (c >= '0' && c <= '9') {
            while (i < len && is_name_char(s[i])) i++; /* a number (0x1f, 1.5, 0f3f800000) */
        } else {
            i++;
        }
    }
}

/* The first operand's length (up to a top-level comma). */
static size_t first_operand_len(const char *s, size_t len) {
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '{' || s[i] == '[' || s[i] == '(') depth++;
        else if (s[i] == '}' || s[i] == ']' || s[i] == ')') depth--;
        else if (s[i] == ',' && depth == 0) return i;
    }
    return len;
}

/* ---- what an instruction defines ---------------------------------------------------------- */

/* Mnemonics (by their first dotted part, or whole) whose first operand is no destination. */
static bool defines_nothing(const char *op, size_t n) {
    static const char *const none[] = {"st",   "red",   "bra",      "call",    "ret",     "exit",
                                       "bar",  "barrier", "membar", "fence",   "prefetch", "trap",
                                       "cp",   "nanosleep", "discard", "brkpt", "pmevent", "stmatrix",
                                       "cp.async", "multimem", "tensormap", "griddepcontrol"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        size_t k = strlen(none[i]);
        if (n >= k && strncmp(op, none[i], k) == 0 && (n == k || op[k] == '.')) return true;
    }
    return false;
}

/* A `.u64`/`.s64`/`.b64`/`.f64` qualifier somewhere in the mnemonic. */
static bool text_is_64bit(const char *op, size_t n) {
    for (size_t i = 0; i + 4 <= n; i++)
        if (op[i] == '.' && (op[i + 1] == 'u' || op[i + 1] == 's' || op[i + 1] == 'b' ||
                             op[i + 1] == 'f') &&
            op[i + 2] == '6' && op[i + 3] == '4')
            return true;
    return false;
}

static bool insn_is_64bit(const ptx_insn *x) {
    for (uint8_t q = 0; q < x->nquals; q++) {
        const char *name = ptx_qual_name((ptx_qual)x->quals[q]);
        char dotted[32];
        int n = snprintf(dotted, sizeof dotted, ".%s", name ? name : "");
        if (n > 0 && (size_t)n < sizeof dotted && text_is_64bit(dotted, (size_t)n)) return true;
    }
    return false;
}

/* How an instruction reads: the destination tokens, the source tokens, and the kind of
 * definition. */
typedef enum def_kind { DEF_NONE, DEF_PARAM_LOAD, DEF_LOAD, DEF_CVTA_LOCAL, DEF_PLAIN } def_kind;

typedef struct reading {
    def_kind kind;
    bool wide; /* a 64-bit type qualifier */
    token_list dest, src;
} reading;

static void read_unknown(const analysis *a, const ptx_insn *x, reading *r) {
    const char *s = x->text ? x->text : "", *end = s + strlen(s);
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    if (s < end && *s == '@') {
        while (s < end && *s != ' ' && *s != '\t') s++;
        while (s < end && (*s == ' ' || *s == '\t')) s++;
    }
    const char *op = s;
    while (s < end && *s != ' ' && *s != '\t' && *s != ';') s++;
    size_t op_len = (size_t)(s - op);
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    const char *semi = memchr(s, ';', (size_t)(end - s));
    size_t ops_len = semi ? (size_t)(semi - s) : (size_t)(end - s);
    if (!op_len || defines_nothing(op, op_len)) return;
    size_t first = first_operand_len(s, ops_len);
    text_tokens(a->fn, s, first, &r->dest);
    if (first < ops_len) text_tokens(a->fn, s + first + 1, ops_len - first - 1, &r->src);
    r->wide = text_is_64bit(op, op_len);
    if (starts_with(op, op_len, "ld.param")) r->kind = DEF_PARAM_LOAD;
    else if (starts_with(op, op_len, "ld.") || starts_with(op, op_len, "ldu.") ||
             starts_with(op, op_len, "atom."))
        r->kind = DEF_LOAD;
    else if (starts_with(op, op_len, "cvta.shared") || starts_with(op, op_len, "cvta.local") ||
             starts_with(op, op_len, "cvta.to.shared") || starts_with(op, op_len, "cvta.to.local"))
        r->kind = DEF_CVTA_LOCAL;
    else
        r->kind = DEF_PLAIN;
}

static void read_insn(const analysis *a, const ptx_insn *x, reading *r) {
    memset(r, 0, sizeof *r);
    if (x->unknown) {
        read_unknown(a, x, r);
        return;
    }
    const char *name = ptx_opcode_name((ptx_opcode)x->op);
    if (!name || defines_nothing(name, strlen(name)) || x->noperands == 0) return;
    uint8_t first = x->operands[0].pair_next && x->noperands > 1 ? 2 : 1;
    for (uint8_t i = 0; i < first; i++) operand_tokens(&x->operands[i], &r->dest);
    for (uint8_t i = first; i < x->noperands; i++) operand_tokens(&x->operands[i], &r->src);
    r->wide = insn_is_64bit(x);
    if (x->op == PTX_OP_LD && x->space == PTX_SPACE_PARAM) r->kind = DEF_PARAM_LOAD;
    else if (x->op == PTX_OP_LD || x->op == PTX_OP_LDU || x->op == PTX_OP_ATOM) r->kind = DEF_LOAD;
    else if (x->op == PTX_OP_CVTA && (x->space == PTX_SPACE_SHARED ||
                                      x->space == PTX_SPACE_SHARED_CLUSTER ||
                                      x->space == PTX_SPACE_LOCAL))
        r->kind = DEF_CVTA_LOCAL;
    else
        r->kind = DEF_PLAIN;
}

/* ---- provenance ------------------------------------------------------------------------------ */

static bool is_shared_name(const analysis *a, const char *s, size_t n) {
    for (uint32_t i = 0; i < a->nshared; i++)
        if (strlen(a->shared_names[i]) == n && strncmp(a->shared_names[i], s, n) == 0) return true;
    return false;
}

static uint64_t token_mask(const analysis *a, const token *t, bool param_load) {
    if (t->reg >= 0) {
        const char *name = a->fn->regs[t->reg].name;
        if (name && (strcmp(name, "%SP") == 0 || strcmp(name, "%SPL") == 0)) return NOT_GLOBAL;
        return a->mask[t->reg];
    }
    if (!t->symbol) return 0; /* special registers carry no address */
    if (is_shared_name(a, t->symbol, t->symbol_len)) return NOT_GLOBAL;
    if (starts_with(t->symbol, t->symbol_len, "__local_depot")) return NOT_GLOBAL;
    if (param_load && a->fn->is_entry)
        for (int32_t p = 0; p < a->fn->nparams; p++) {
            const char *pn = a->fn->params[p].name;
            if (pn && strlen(pn) == t->symbol_len && strncmp(pn, t->symbol, t->symbol_len) == 0)
                return p < 32 ? 1ull << p : UNKNOWN;
        }
    return UNKNOWN; /* a global variable, a .func parameter, a call's return value */
}

/* What the destination of a reading may derive from. */
static uint64_t reading_mask(const analysis *a, const reading *r) {
    if (r->kind == DEF_PARAM_LOAD) {
        uint64_t m = r->src.n ? token_mask(a, &r->src.t[0], true) : UNKNOWN;
        /* a 32-bit (or narrower) parameter is an integer, never a pointer: an offset */
        return !r->wide && !(m & UNKNOWN) ? 0 : m;
    }
    /* a loaded 64-bit value may be a pointer; narrower ones are at most offsets */
    if (r->kind == DEF_LOAD) return r->wide ? UNKNOWN : 0;
    uint64_t m = r->src.full ? UNKNOWN : 0;
    for (uint32_t i = 0; i < r->src.n; i++) m |= token_mask(a, &r->src.t[i], false);
    if (r->kind == DEF_CVTA_LOCAL) m = (m & ~(UNKNOWN | PARAM_BITS)) | NOT_GLOBAL;
    return m;
}

/* One round over fn's instructions; true when a mask grew. */
static bool propagate(analysis *a) {
    bool changed = false;
    for (int32_t k = 0; k < a->fn->nstmts; k++) {
        if (a->fn->stmts[k].kind != PTX_STMT_INSN) continue;
        reading r;
        read_insn(a, a->fn->stmts[k].insn, &r);
        if (r.kind == DEF_NONE) continue;
        uint64_t m = reading_mask(a, &r);
        for (uint32_t i = 0; i < r.dest.n; i++) {
            int32_t reg = r.dest.t[i].reg;
            if (reg < 0 || (a->mask[reg] | m) == a->mask[reg]) continue;
            a->mask[reg] |= m;
            changed = true;
        }
    }
    return changed;
}

/* ---- the accesses the instrumenter hooks ---------------------------------------------------- */

static int reg_bytes(const ptx_function *fn, int32_t reg) {
    return reg >= 0 && reg < fn->nregs ? ptx_type_size((ptx_type)fn->regs[reg].type) : 0;
}

/* The provenance of an address as the hook receives it: the register itself, or the
 * instrumenter's temporary (a 64-bit register plus an offset keeps the register's; a 32-bit
 * one plus an offset goes through one 32-bit temporary per function, which holds any of its
 * definitions; a symbol plus an offset, or an absolute address, derives from nothing the
 * reader follows). */
static uint64_t address_mask(const analysis *a, const ptx_operand *o) {
    token t = {-1, NULL, 0};
    switch (o->addr_base) {
    case PTX_ADDR_REG:
        if (reg_bytes(a->fn, o->addr_reg) != 8 && o->offset != 0) return a->addr32;
        t.reg = o->addr_reg;
        return token_mask(a, &t, false);
    case PTX_ADDR_SYMBOL:
        if (o->offset != 0) return 0;
        t.symbol = o->addr_symbol;
        t.symbol_len = strlen(o->addr_symbol);
        return token_mask(a, &t, false);
    default: return 0;
    }
}

static bool hooked_space(uint8_t space) {
    return space == PTX_SPACE_NONE || space == PTX_SPACE_GLOBAL || space == PTX_SPACE_SHARED ||
           space == PTX_SPACE_SHARED_CLUSTER;
}

/* The address operands an instruction's hooks receive: n of them; write[i] says whether hook i
 * writes, shared[i] whether it is a shared-memory one, weak_read[i] a plain read. */
typedef struct hooked {
    const ptx_operand *addr[2];
    bool write[2], shared[2], weak_read[2];
    int n;
} hooked;

static void hooks_of(const ptx_insn *x, hooked *h) {
    memset(h, 0, sizeof *h);
    if (x->unknown) return;
    const ptx_operand *addr = NULL;
    switch (x->op) {
    case PTX_OP_LD:
    case PTX_OP_LDU:
    case PTX_OP_ST:
    case PTX_OP_ATOM:
    case PTX_OP_RED:
        if (!hooked_space(x->space)) return;
        for (int i = 0; i < x->noperands && !addr; i++)
            if (x->operands[i].kind == PTX_OPND_ADDR) addr = &x->operands[i];
        if (!addr) return;
        h->addr[0] = addr;
        h->write[0] = x->op == PTX_OP_ST || x->op == PTX_OP_ATOM || x->op == PTX_OP_RED;
        h->shared[0] = x->space == PTX_SPACE_SHARED || x->space == PTX_SPACE_SHARED_CLUSTER;
        h->weak_read[0] = !h->write[0] && (x->sem == PTX_SEM_NONE || x->sem == PTX_SEM_WEAK);
        h->n = 1;
        return;
    case PTX_OP_CP_ASYNC: /* a read of the global source, then the shared destination */
        if (x->subop != PTX_SUBOP_NONE || x->noperands < 2 || x->operands[0].kind != PTX_OPND_ADDR ||
            x->operands[1].kind != PTX_OPND_ADDR)
            return;
        h->addr[0] = &x->operands[1];
        h->weak_read[0] = true;
        h->addr[1] = &x->operands[0];
        h->write[1] = h->shared[1] = true;
        h->n = 2;
        return;
    default: return;
    }
}

static bool add_kernel(analysis *a, const char *name, uint32_t candidates) {
    gr_readonly *r = a->out;
    void *p = realloc(r->kernels, (r->nkernels + 1u) * sizeof *r->kernels);
    if (!p) return !(a->oom = true);
    r->kernels = p;
    gr_readonly_kernel *k = &r->kernels[r->nkernels++];
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", name);
    k->candidates = candidates;
    return true;
}

static void analyze_function(analysis *a, const ptx_function *fn) {
    a->fn = fn;
    memset(a->mask, 0, ((size_t)fn->nregs + 1) * sizeof *a->mask);
    for (int round = 0; propagate(a); round++)
        if (round == MAX_ROUNDS - 1) {
            a->module_off = true; /* did not settle: give up */
            break;
        }
    /* the 32-bit address temporary is one register, defined from each such base */
    a->addr32 = 0;
    for (int32_t k = 0; k < fn->nstmts; k++) {
        if (fn->stmts[k].kind != PTX_STMT_INSN) continue;
        hooked h;
        hooks_of(fn->stmts[k].insn, &h);
        for (int i = 0; i < h.n; i++)
            if (h.addr[i]->addr_base == PTX_ADDR_REG && reg_bytes(fn, h.addr[i]->addr_reg) != 8 &&
                h.addr[i]->offset != 0)
                a->addr32 |= a->mask[h.addr[i]->addr_reg];
    }
    uint64_t written = 0;
    bool off = false;
    uint32_t n = 0; /* candidate loads of this function: their ids */
    uint32_t *ids = malloc(((size_t)fn->nstmts + 1) * sizeof *ids);
    if (!ids) {
        a->oom = true;
        return;
    }
    for (int32_t k = 0; k < fn->nstmts; k++) {
        if (fn->stmts[k].kind != PTX_STMT_INSN) continue;
        const ptx_insn *x = fn->stmts[k].insn;
        hooked h;
        hooks_of(x, &h);
        for (int i = 0; i < h.n; i++) {
            if (h.shared[i]) continue;
            uint64_t m = address_mask(a, h.addr[i]);
            if (h.write[i]) {
                if ((m & UNKNOWN) || m == 0) off = true;
                written |= m & PARAM_BITS;
            } else if (h.weak_read[i] && !(m & (UNKNOWN | NOT_GLOBAL)) && (m & PARAM_BITS) &&
                       x->id < a->out->nids) {
                a->out->mask[x->id] = (uint32_t)(m & PARAM_BITS);
                ids[n++] = x->id;
            }
        }
    }
    uint32_t candidates = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t *mask = &a->out->mask[ids[i]];
        if (!fn->is_entry || off || (*mask & written)) *mask = 0;
        candidates |= *mask;
    }
    free(ids);
    if (!fn->is_entry) {
        if (off) a->module_off = true;
        return;
    }
    add_kernel(a, fn->name, candidates);
}

static bool collect_shared_names(analysis *a) {
    uint32_t n = 0;
    for (int32_t i = 0; i < a->m->nvars; i++) n += a->m->vars[i].space == PTX_SPACE_SHARED;
    for (int32_t f = 0; f < a->m->nfunctions; f++)
        for (int32_t i = 0; i < a->m->functions[f].nvars; i++)
            n += a->m->functions[f].vars[i].space == PTX_SPACE_SHARED;
    a->shared_names = malloc((n ? n : 1) * sizeof *a->shared_names);
    if (!a->shared_names) return false;
    for (int32_t i = 0; i < a->m->nvars; i++)
        if (a->m->vars[i].space == PTX_SPACE_SHARED && a->m->vars[i].name)
            a->shared_names[a->nshared++] = a->m->vars[i].name;
    for (int32_t f = 0; f < a->m->nfunctions; f++)
        for (int32_t i = 0; i < a->m->functions[f].nvars; i++) {
            const ptx_var *v = &a->m->functions[f].vars[i];
            if (v->space == PTX_SPACE_SHARED && v->name) a->shared_names[a->nshared++] = v->name;
        }
    return true;
}

bool gr_readonly_find(const ptx_module *m, gr_readonly *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    analysis a;
    memset(&a, 0, sizeof a);
    a.m = m;
    a.out = out;
    int32_t most_regs = 0;
    for (int32_t f = 0; f < m->nfunctions; f++)
        if (m->functions[f].nregs > most_regs) most_regs = m->functions[f].nregs;
    out->nids = m->ninsns;
    out->mask = calloc((size_t)m->ninsns + 1, sizeof *out->mask);
    a.mask = calloc((size_t)most_regs + 1, sizeof *a.mask);
    if (!out->mask || !a.mask || !collect_shared_names(&a)) a.oom = true;
    for (int32_t f = 0; f < m->nfunctions && !a.oom; f++)
        if (m->functions[f].has_body) analyze_function(&a, &m->functions[f]);
    if (a.module_off) {
        memset(out->mask, 0, ((size_t)m->ninsns + 1) * sizeof *out->mask);
        for (uint32_t k = 0; k < out->nkernels; k++) out->kernels[k].candidates = 0;
    }
    for (uint32_t id = 0; out->mask && id < out->nids; id++) out->loads += out->mask[id] != 0;
    free(a.mask);
    free(a.shared_names);
    if (a.oom) {
        gr_readonly_free(out);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory analyzing read-only parameters");
    }
    return true;
}

void gr_readonly_free(gr_readonly *r) {
    free(r->mask);
    free(r->kernels);
    memset(r, 0, sizeof *r);
}

uint32_t gr_readonly_candidates(const gr_readonly *r, const char *name) {
    for (uint32_t k = 0; k < r->nkernels; k++)
        if (strcmp(r->kernels[k].name, name) == 0) return r->kernels[k].candidates;
    return 0;
}

uint32_t gr_readonly_launch_bits(uint32_t candidates, uint32_t exclusive, const int64_t *arg_buffer,
                                 int nargs) {
    uint32_t bits = 0;
    for (int i = 0; i < nargs && i < 32; i++) {
        bool excl = exclusive & (1u << i);
        if (!(candidates & (1u << i)) && !excl) continue;
        if (arg_buffer[i] == GR_READONLY_ARG_NOT_POINTER) {
            if (!excl) bits |= 1u << i; /* an integer only offsets addresses */
            continue;
        }
        int64_t buf = arg_buffer[i];
        bool alone = buf >= 0;
        for (int j = 0; alone && j < nargs; j++) {
            bool other_reads_only = j < 32 && (candidates & (1u << j)) && !excl;
            if (j == i || other_reads_only || arg_buffer[j] == GR_READONLY_ARG_NOT_POINTER) continue;
            if (arg_buffer[j] == buf) alone = false;
        }
        if (alone) bits |= 1u << i;
    }
    return bits;
}
