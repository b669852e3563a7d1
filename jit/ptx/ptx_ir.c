/* ptx_ir.c — qualifier decoding, the semantic helpers later stages share, and the builder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/ptx/ptx_internal.h"

bool ptx_insn_decode(ptx_insn *insn) {
    insn->space = insn->space2 = PTX_SPACE_NONE;
    insn->type = insn->type2 = PTX_TYPE_NONE;
    insn->scope = PTX_SCOPE_NONE;
    insn->sem = PTX_SEM_NONE;
    insn->cmp = PTX_CMP_NONE;
    insn->boolop = insn->subop = insn->redop = PTX_SUBOP_NONE;
    insn->rnd = PTX_RND_NONE;
    insn->vec = 1;
    insn->flags = 0;
    bool is_compare = insn->op == PTX_OP_SETP || insn->op == PTX_OP_SET;
    for (int i = 0; i < insn->nquals; i++) {
        ptx_qual q = (ptx_qual)insn->quals[i];
        uint32_t v = ptx_qual_value(q);
        switch (ptx_qual_kind_of(q)) {
        case PTX_QK_SPACE:
            if (!insn->space) insn->space = (uint8_t)v;
            else if (!insn->space2) insn->space2 = (uint8_t)v;
            else return false;
            break;
        case PTX_QK_TYPE:
            if (!insn->type) insn->type = (uint8_t)v;
            else if (!insn->type2) insn->type2 = (uint8_t)v;
            else return false;
            break;
        case PTX_QK_SCOPE:
            if (insn->scope) return false;
            insn->scope = (uint8_t)v;
            break;
        case PTX_QK_SEM:
            if (insn->sem) return false;
            insn->sem = (uint8_t)v;
            break;
        case PTX_QK_CMP:
            if (insn->cmp) return false;
            insn->cmp = (uint8_t)v;
            break;
        case PTX_QK_RND:
            if (insn->rnd) return false;
            insn->rnd = (uint8_t)v;
            break;
        case PTX_QK_VEC:
            if (insn->vec != 1) return false;
            insn->vec = (uint8_t)v;
            break;
        case PTX_QK_FLAG:
            insn->flags |= v;
            break;
        case PTX_QK_SUBOP:
            if (is_compare) {
                /* .lo/.hi are unsigned comparisons here; .and/.or/.xor combine predicates */
                if (v == PTX_SUBOP_LO || v == PTX_SUBOP_HI) {
                    if (insn->cmp) return false;
                    insn->cmp = v == PTX_SUBOP_LO ? PTX_CMP_LO : PTX_CMP_HI;
                } else if (v == PTX_SUBOP_AND || v == PTX_SUBOP_OR || v == PTX_SUBOP_XOR) {
                    if (insn->boolop) return false;
                    insn->boolop = (uint8_t)v;
                } else {
                    return false;
                }
            } else if (!insn->subop) {
                insn->subop = (uint8_t)v;
            } else if (insn->subop == PTX_SUBOP_RED && !insn->redop) {
                insn->redop = (uint8_t)v; /* bar.red.popc / .and / .or */
            } else {
                return false;
            }
            break;
        case PTX_QK_CACHE:
        case PTX_QK_OTHER:
            break;
        }
    }
    return true;
}

int ptx_insn_access_size(const ptx_insn *insn) {
    if (!ptx_insn_is_memory(insn)) return 0;
    if (insn->op == PTX_OP_CP_ASYNC) {
        /* cp.async [dst], [src], cp-size[, src-size]: the copy size is the third operand */
        if (insn->noperands >= 3 && insn->operands[2].kind == PTX_OPND_IMM_INT)
            return (int)insn->operands[2].u.imm;
        return 0;
    }
    return ptx_type_size((ptx_type)insn->type) * (insn->vec ? insn->vec : 1);
}

uint64_t ptx_var_size(const ptx_var *v) {
    uint64_t n = (uint64_t)ptx_type_size((ptx_type)v->type) * (v->vec ? v->vec : 1);
    for (int32_t d = 0; d < v->ndims && d < 4; d++) {
        if (v->dims[d] < 0) return 0; /* unsized: its size comes from elsewhere */
        uint64_t k = (uint64_t)v->dims[d];
        if (k && n > UINT64_MAX / k) return UINT64_MAX;
        n *= k;
    }
    return n;
}

ptx_scope ptx_insn_scope(const ptx_insn *insn) {
    if (insn->scope) return (ptx_scope)insn->scope;
    switch (insn->op) {
    case PTX_OP_ATOM:
    case PTX_OP_RED:
    case PTX_OP_FENCE:
    case PTX_OP_MEMBAR:
        return PTX_SCOPE_GPU;
    case PTX_OP_LD:
    case PTX_OP_ST:
        if (insn->sem == PTX_SEM_RELAXED || insn->sem == PTX_SEM_ACQUIRE ||
            insn->sem == PTX_SEM_RELEASE)
            return PTX_SCOPE_GPU;
        return PTX_SCOPE_NONE;
    case PTX_OP_BAR:
    case PTX_OP_BARRIER:
        return PTX_SCOPE_CTA;
    default:
        return PTX_SCOPE_NONE;
    }
}

const ptx_operand *ptx_insn_address(const ptx_insn *insn) {
    if (!ptx_insn_is_memory(insn)) return NULL;
    for (int i = 0; i < insn->noperands; i++)
        if (insn->operands[i].kind == PTX_OPND_ADDR) return &insn->operands[i];
    return NULL;
}

bool ptx_insn_is_memory(const ptx_insn *insn) {
    return (ptx_opcode_class((ptx_opcode)insn->op) & PTX_OPC_MEMORY) != 0;
}

bool ptx_insn_is_sync(const ptx_insn *insn) {
    return (ptx_opcode_class((ptx_opcode)insn->op) & PTX_OPC_SYNC) != 0;
}

void ptx_module_free(ptx_module *m) {
    if (!m) return;
    free(m->insn_index);
    free(m->insn_function);
    gr_arena arena = m->arena;
    gr_arena_free(&arena);
    free(m);
}

/* ---- building ---------------------------------------------------------------------------------- */

/* Grows an arena array to hold at least `need` elements (copying; the old copy stays in the
 * arena until the module is freed). */
bool ptx_arena_grow(gr_arena *a, void **array, int32_t *cap, int32_t need, size_t elem) {
    if (need <= *cap) return true;
    int32_t ncap = *cap ? *cap : 8;
    while (ncap < need) ncap *= 2;
    void *p = gr_arena_alloc(a, (size_t)ncap * elem);
    if (!p) return false;
    if (*array && *cap) memcpy(p, *array, (size_t)*cap * elem);
    *array = p;
    *cap = ncap;
    return true;
}

static int32_t function_index(const ptx_module *m, const ptx_function *fn) {
    if (fn && fn >= m->functions && fn < m->functions + m->nfunctions)
        return (int32_t)(fn - m->functions);
    return -1;
}

bool ptx_module_index_insn(ptx_module *m, ptx_insn *insn, int32_t fn_index) {
    if (insn->id >= m->insn_index_cap) {
        uint32_t ncap = m->insn_index_cap ? m->insn_index_cap : 256;
        while (ncap <= insn->id) ncap *= 2;
        ptx_insn **ni = realloc(m->insn_index, ncap * sizeof *ni);
        if (!ni) return false;
        m->insn_index = ni;
        int32_t *nf = realloc(m->insn_function, ncap * sizeof *nf);
        if (!nf) return false;
        m->insn_function = nf;
        for (uint32_t i = m->insn_index_cap; i < ncap; i++) {
            ni[i] = NULL;
            nf[i] = -1;
        }
        m->insn_index_cap = ncap;
    }
    m->insn_index[insn->id] = insn;
    m->insn_function[insn->id] = fn_index;
    return true;
}

ptx_insn *ptx_insn_new(ptx_module *m, const ptx_function *fn, ptx_opcode op) {
    ptx_insn *insn = gr_arena_alloc(&m->arena, sizeof *insn);
    if (!insn) return NULL;
    insn->id = m->ninsns;
    insn->op = (uint16_t)op;
    insn->guard_reg = -1;
    insn->loc = -1;
    insn->vec = 1;
    if (!ptx_module_index_insn(m, insn, function_index(m, fn))) return NULL;
    m->ninsns++;
    return insn;
}

bool ptx_insn_add_qual(ptx_insn *insn, ptx_qual q) {
    if (insn->nquals >= PTX_MAX_QUALS) return false;
    insn->quals[insn->nquals++] = (uint8_t)q;
    return ptx_insn_decode(insn);
}

ptx_operand ptx_opnd_reg(int32_t reg) {
    ptx_operand o = {0};
    o.kind = PTX_OPND_REG;
    o.u.reg = reg;
    return o;
}

ptx_operand ptx_opnd_imm(uint64_t value) {
    ptx_operand o = {0};
    o.kind = PTX_OPND_IMM_INT;
    o.u.imm = value;
    return o;
}

ptx_operand ptx_opnd_symbol(const char *name, int64_t offset) {
    ptx_operand o = {0};
    o.kind = PTX_OPND_SYMBOL;
    o.u.symbol = name;
    o.offset = offset;
    return o;
}

ptx_operand ptx_opnd_addr_reg(int32_t reg, int64_t offset) {
    ptx_operand o = {0};
    o.kind = PTX_OPND_ADDR;
    o.addr_base = PTX_ADDR_REG;
    o.addr_reg = reg;
    o.u.reg = reg;
    o.offset = offset;
    return o;
}

ptx_operand ptx_opnd_addr_symbol(const char *name, int64_t offset) {
    ptx_operand o = {0};
    o.kind = PTX_OPND_ADDR;
    o.addr_base = PTX_ADDR_SYMBOL;
    o.addr_symbol = name;
    o.u.symbol = name;
    o.offset = offset;
    return o;
}

bool ptx_insn_add_operand(ptx_insn *insn, ptx_operand op) {
    if (insn->noperands >= PTX_MAX_OPERANDS) return false;
    insn->operands[insn->noperands++] = op;
    return true;
}

static int32_t add_regdecl(ptx_module *m, ptx_function *fn, const char *prefix, ptx_type type,
                           int32_t count) {
    int32_t n = count < 0 ? 1 : count;
    if (!ptx_arena_grow(&m->arena, (void **)&fn->regdecls, &fn->regdecls_cap, fn->nregdecls + 1,
              sizeof *fn->regdecls) ||
        !ptx_arena_grow(&m->arena, (void **)&fn->regs, &fn->regs_cap, fn->nregs + n, sizeof *fn->regs))
        return -1;
    const char *p = gr_arena_strdup(&m->arena, prefix);
    if (!p) return -1;
    int32_t d = fn->nregdecls++;
    ptx_regdecl *rd = &fn->regdecls[d];
    memset(rd, 0, sizeof *rd);
    rd->type = (uint8_t)type;
    rd->vec = 1;
    rd->prefix = p;
    rd->count = count;
    rd->first_reg = fn->nregs;
    rd->nregs = n;
    for (int32_t i = 0; i < n; i++) {
        ptx_reg *r = &fn->regs[fn->nregs + i];
        memset(r, 0, sizeof *r);
        r->type = (uint8_t)type;
        r->vec = 1;
        r->decl = d;
        if (count < 0) {
            r->name = p;
        } else {
            size_t len = strlen(p) + 12;
            char *name = gr_arena_alloc(&m->arena, len);
            if (!name) return -1;
            snprintf(name, len, "%s%d", p, (int)i);
            r->name = name;
        }
    }
    int32_t first = fn->nregs;
    fn->nregs += n;
    return first;
}

int32_t ptx_function_add_reg(ptx_module *m, ptx_function *fn, const char *name, ptx_type type) {
    return add_regdecl(m, fn, name, type, -1);
}

int32_t ptx_function_add_reg_range(ptx_module *m, ptx_function *fn, const char *prefix,
                                   ptx_type type, int32_t count) {
    if (count <= 0) return -1;
    return add_regdecl(m, fn, prefix, type, count);
}

bool ptx_function_insert_stmts(ptx_module *m, ptx_function *fn, int32_t at, const ptx_stmt *stmts,
                               int32_t n) {
    if (at < 0 || at > fn->nstmts || n < 0) return false;
    if (!ptx_arena_grow(&m->arena, (void **)&fn->stmts, &fn->stmts_cap, fn->nstmts + n, sizeof *fn->stmts))
        return false;
    memmove(fn->stmts + at + n, fn->stmts + at, (size_t)(fn->nstmts - at) * sizeof *fn->stmts);
    memcpy(fn->stmts + at, stmts, (size_t)n * sizeof *stmts);
    fn->nstmts += n;
    fn->has_body = true;
    return true;
}

bool ptx_function_insert_insn(ptx_module *m, ptx_function *fn, int32_t at, ptx_insn *insn) {
    ptx_stmt s = {.kind = PTX_STMT_INSN, .decl = -1, .text = NULL, .insn = insn};
    return ptx_function_insert_stmts(m, fn, at, &s, 1);
}

int32_t ptx_function_find_reg(const ptx_function *fn, const char *name) {
    for (int32_t i = fn->nregs - 1; i >= 0; i--)
        if (strcmp(fn->regs[i].name, name) == 0) return i;
    return -1;
}

int32_t ptx_module_find_function(const ptx_module *m, const char *name) {
    int32_t found = -1;
    for (int32_t i = 0; i < m->nfunctions; i++) {
        if (!m->functions[i].name || strcmp(m->functions[i].name, name) != 0) continue;
        if (m->functions[i].has_body) return i;
        if (found < 0) found = i;
    }
    return found;
}

/* Whether kernel `fn` or a function it calls reads %envreg1/%envreg2, the grid-sync workspace
 * of cooperative groups' this_grid().sync(): then it must be launched cooperatively. */
/* True when `pred` holds for an instruction of `fn` or of a function it calls. */
static bool any_insn_reachable(const ptx_module *m, const ptx_function *fn,
                               bool (*pred)(const ptx_insn *x)) {
    const ptx_function *todo[64];
    int n = 0;
    todo[n++] = fn;
    for (int k = 0; k < n; k++) {
        const ptx_function *f = todo[k];
        for (int32_t i = 0; i < f->nstmts; i++) {
            const ptx_insn *x = f->stmts[i].kind == PTX_STMT_INSN ? f->stmts[i].insn : NULL;
            if (!x) continue;
            if (pred(x)) return true;
            for (int o = 0; o < x->noperands; o++) {
                const ptx_operand *op = &x->operands[o];
                if (x->op == PTX_OP_CALL && op->kind == PTX_OPND_SYMBOL && n < 64) {
                    int32_t ci = ptx_module_find_function(m, op->u.symbol);
                    bool seen = ci < 0;
                    for (int j = 0; j < n && !seen; j++) seen = todo[j] == &m->functions[ci];
                    if (!seen) todo[n++] = &m->functions[ci];
                }
            }
        }
    }
    return false;
}

static bool reads_grid_workspace(const ptx_insn *x) {
    for (int o = 0; o < x->noperands; o++) {
        const ptx_operand *op = &x->operands[o];
        if (op->kind == PTX_OPND_SREG && op->u.sreg == PTX_SREG_ENVREG &&
            (op->component == 1 || op->component == 2))
            return true;
    }
    return false;
}

bool ptx_function_syncs_grid(const ptx_module *m, const ptx_function *fn) {
    return any_insn_reachable(m, fn, reads_grid_workspace);
}

static bool may_order_blocks(const ptx_insn *x) {
    switch (x->op) {
    case PTX_OP_ATOM:
    case PTX_OP_RED:
    case PTX_OP_MEMBAR:
    case PTX_OP_FENCE:
        return true;
    default:
        break;
    }
    if (x->sem != PTX_SEM_NONE && x->sem != PTX_SEM_WEAK) return true; /* volatile, acquire ... */
    return x->unknown || reads_grid_workspace(x);
}

bool ptx_function_may_order_blocks(const ptx_module *m, const ptx_function *fn) {
    return any_insn_reachable(m, fn, may_order_blocks);
}
