/* instrument.c — inserts hook calls before memory accesses and synchronization (instrument.h).
 *
 * Two passes over the module: the first classifies every instruction and refuses anything it
 * cannot describe (so a failing module is left untouched), the second rebuilds each function's
 * statement list with the hook sequences in front of the instructions they describe. */
#include "jit/instrument/instrument.h"
#include "jit/ptx/ptx_srcmap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define RESERVED_REG_PREFIX "%gr_"
#define RESERVED_FUNC_PREFIX "__gr_hook_"

/* ---- classification --------------------------------------------------------------------------- */

typedef enum hook_kind {
    HOOK_NONE = 0,
    HOOK_SKIPPED, /* a local/param/const access: counted, not instrumented */
    HOOK_ACCESS,  /* one __gr_hook_access for the address operand `addr` */
    HOOK_CP_ASYNC,/* read of the source, async write of the destination */
    HOOK_SYNC,    /* one __gr_hook_sync with arg0/arg1 */
} hook_kind;

typedef enum stat_class {
    STAT_NONE, STAT_ACCESS, STAT_BARRIER, STAT_WARP_SYNC, STAT_FENCE, STAT_COLLECTIVE, STAT_EXIT,
    STAT_ASYNC_GROUP,
} stat_class;

typedef struct hook_plan {
    hook_kind kind;
    stat_class stat;
    uint32_t info;              /* access or sync info word */
    const ptx_operand *addr;    /* HOOK_ACCESS: the address; HOOK_CP_ASYNC: the source */
    const ptx_operand *addr2;   /* HOOK_CP_ASYNC: the shared destination */
    uint32_t info2;             /* HOOK_CP_ASYNC: info of the destination write */
    const ptx_operand *src_size;/* HOOK_CP_ASYNC: src-size (b32) or ignore-src (pred), or NULL */
    ptx_operand arg0, arg1;     /* HOOK_SYNC: immediates or 32-bit registers */
} hook_plan;

static uint32_t hook_sem(ptx_sem s) {
    switch (s) {
    case PTX_SEM_VOLATILE: return GR_HOOK_SEM_VOLATILE;
    case PTX_SEM_RELAXED: return GR_HOOK_SEM_RELAXED;
    case PTX_SEM_ACQUIRE: return GR_HOOK_SEM_ACQUIRE;
    case PTX_SEM_RELEASE: return GR_HOOK_SEM_RELEASE;
    case PTX_SEM_ACQ_REL: return GR_HOOK_SEM_ACQ_REL;
    case PTX_SEM_SC: return GR_HOOK_SEM_SC;
    case PTX_SEM_MMIO: return GR_HOOK_SEM_MMIO;
    default: return GR_HOOK_SEM_WEAK;
    }
}

static uint32_t hook_scope(ptx_scope s) {
    switch (s) {
    case PTX_SCOPE_CTA: return GR_HOOK_SCOPE_CTA;
    case PTX_SCOPE_CLUSTER: return GR_HOOK_SCOPE_CLUSTER;
    case PTX_SCOPE_GPU: return GR_HOOK_SCOPE_GPU;
    case PTX_SCOPE_SYS: return GR_HOOK_SCOPE_SYS;
    default: return GR_HOOK_SCOPE_NONE;
    }
}

static uint32_t hook_op(ptx_subop s) {
    switch (s) {
    case PTX_SUBOP_ADD: return GR_HOOK_OP_ADD;
    case PTX_SUBOP_INC: return GR_HOOK_OP_INC;
    case PTX_SUBOP_DEC: return GR_HOOK_OP_DEC;
    case PTX_SUBOP_MIN: return GR_HOOK_OP_MIN;
    case PTX_SUBOP_MAX: return GR_HOOK_OP_MAX;
    case PTX_SUBOP_AND: return GR_HOOK_OP_AND;
    case PTX_SUBOP_OR: return GR_HOOK_OP_OR;
    case PTX_SUBOP_XOR: return GR_HOOK_OP_XOR;
    case PTX_SUBOP_EXCH: return GR_HOOK_OP_EXCH;
    case PTX_SUBOP_CAS: return GR_HOOK_OP_CAS;
    case PTX_SUBOP_POPC: return GR_HOOK_OP_POPC;
    case PTX_SUBOP_ALL: return GR_HOOK_OP_ALL;
    case PTX_SUBOP_ANY: return GR_HOOK_OP_ANY;
    case PTX_SUBOP_UNI: return GR_HOOK_OP_UNI;
    case PTX_SUBOP_BALLOT: return GR_HOOK_OP_BALLOT;
    case PTX_SUBOP_UP: return GR_HOOK_OP_UP;
    case PTX_SUBOP_DOWN: return GR_HOOK_OP_DOWN;
    case PTX_SUBOP_BFLY: return GR_HOOK_OP_BFLY;
    case PTX_SUBOP_IDX: return GR_HOOK_OP_IDX;
    default: return GR_HOOK_OP_NONE;
    }
}

/* The space code of an access, or false for spaces no other thread can write. */
static bool hook_space(ptx_space s, uint32_t *out) {
    switch (s) {
    case PTX_SPACE_NONE: *out = GR_HOOK_SPACE_GENERIC; return true;
    case PTX_SPACE_GLOBAL: *out = GR_HOOK_SPACE_GLOBAL; return true;
    case PTX_SPACE_SHARED: *out = GR_HOOK_SPACE_SHARED; return true;
    case PTX_SPACE_SHARED_CLUSTER: *out = GR_HOOK_SPACE_SHARED_CLUSTER; return true;
    default: return false;
    }
}

/* Opcode names (first dotted part) whose unknown forms touch memory or synchronize: an unknown
 * instruction with one of these must be refused, not passed over. */
static bool mnemonic_matters(const char *name, size_t n) {
    static const char *const names[] = {
        "ld", "ldu", "st", "atom", "red", "cp", "mbarrier", "ldmatrix", "stmatrix", "wmma",
        "wgmma", "tcgen05", "multimem", "tensormap", "bar", "barrier", "membar", "fence", "shfl",
        "vote", "match", "redux", "elect", "sust", "sured", "discard", "exit", "ret",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == n && memcmp(names[i], name, n) == 0) return true;
    return false;
}

/* The mnemonic of an unknown instruction's text (after an optional guard), e.g.
 * "mbarrier.arrive.shared.b64" for "@%p1 mbarrier.arrive.shared.b64 %rd1, [%r2]". */
static void unknown_mnemonic(const ptx_insn *insn, const char **start, size_t *len) {
    const char *s = insn->text ? insn->text : "";
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '@') {
        while (*s && *s != ' ' && *s != '\t') s++;
        while (*s == ' ' || *s == '\t') s++;
    }
    size_t n = 0;
    while (s[n] && s[n] != ' ' && s[n] != '\t' && s[n] != ';') n++;
    *start = s;
    *len = n;
}

/* "unsupported PTX instruction X at file:line" with the CUDA source line when a .loc says it. */
static bool refuse(const ptx_module *m, const ptx_insn *insn, const char *why, gr_error *err) {
    const char *name;
    size_t n;
    char buf[128];
    if (insn->unknown) {
        unknown_mnemonic(insn, &name, &n);
    } else {
        size_t used = (size_t)snprintf(buf, sizeof buf, "%s", ptx_opcode_name((ptx_opcode)insn->op));
        for (int i = 0; i < insn->nquals && used < sizeof buf; i++)
            used += (size_t)snprintf(buf + used, sizeof buf - used, ".%s",
                                     ptx_qual_name((ptx_qual)insn->quals[i]));
        name = buf;
        n = strlen(buf);
    }
    const char *file = m->source_name ? m->source_name : "<ptx>";
    char source[600] = "";
    if (insn->loc >= 0 && insn->loc < m->nlocs) {
        const ptx_loc *loc = &m->locs[insn->loc];
        for (int32_t i = 0; i < m->nfiles; i++)
            if (m->files[i].index == loc->file && m->files[i].path)
                snprintf(source, sizeof source, " (%s:%d)", m->files[i].path, (int)loc->line);
    }
    return gr_fail_at(err, GR_ERR_UNSUPPORTED, file, (int)insn->ptx_line, 0,
                      "unsupported PTX instruction '%.*s' at %s:%u%s: %s", (int)n, name, file,
                      insn->ptx_line, source, why);
}

static int reg_size(const ptx_function *f, int32_t reg) {
    if (reg < 0 || reg >= f->nregs) return 0;
    return ptx_type_size((ptx_type)f->regs[reg].type);
}

/* A sync argument: a 32-bit register passes its run-time value, an immediate its low 32 bits. */
static bool sync_arg(const ptx_function *f, const ptx_operand *o, ptx_operand *out) {
    memset(out, 0, sizeof *out);
    if (!o) {
        out->kind = PTX_OPND_IMM_INT;
        return true;
    }
    if (o->kind == PTX_OPND_IMM_INT) {
        out->kind = PTX_OPND_IMM_INT;
        out->u.imm = o->u.imm & 0xffffffffu;
        return true;
    }
    if (o->kind == PTX_OPND_REG && !o->negated && !o->has_component && reg_size(f, o->u.reg) == 4) {
        out->kind = PTX_OPND_REG;
        out->u.reg = o->u.reg;
        return true;
    }
    return false;
}

static bool classify_access(const ptx_module *m, const ptx_function *f, const ptx_insn *insn,
                            hook_plan *plan, gr_error *err) {
    uint32_t space;
    if (!hook_space((ptx_space)insn->space, &space)) {
        plan->kind = HOOK_SKIPPED;
        return true;
    }
    bool atomic = insn->op == PTX_OP_ATOM || insn->op == PTX_OP_RED;
    uint32_t kind_bits = 0;
    switch (insn->op) {
    case PTX_OP_LD:
    case PTX_OP_LDU: kind_bits = GR_HOOK_ACCESS_READ; break;
    case PTX_OP_ST: kind_bits = GR_HOOK_ACCESS_WRITE; break;
    case PTX_OP_ATOM: kind_bits = GR_HOOK_ACCESS_READ | GR_HOOK_ACCESS_WRITE | GR_HOOK_ACCESS_ATOMIC; break;
    default: kind_bits = GR_HOOK_ACCESS_WRITE | GR_HOOK_ACCESS_ATOMIC; break; /* red */
    }
    int size = ptx_type_size((ptx_type)insn->type) * (insn->vec ? insn->vec : 1);
    if (size <= 0 || size > 255) return refuse(m, insn, "cannot tell the access size", err);
    const ptx_operand *addr = NULL;
    for (int i = 0; i < insn->noperands && !addr; i++)
        if (insn->operands[i].kind == PTX_OPND_ADDR) addr = &insn->operands[i];
    if (!addr) return refuse(m, insn, "no address operand", err);
    if (addr->addr_base == PTX_ADDR_REG && reg_size(f, addr->addr_reg) != 4 &&
        reg_size(f, addr->addr_reg) != 8)
        return refuse(m, insn, "address register is neither 32 nor 64 bits", err);

    ptx_sem sem = (ptx_sem)insn->sem;
    if (sem == PTX_SEM_NONE) sem = atomic ? PTX_SEM_RELAXED : PTX_SEM_WEAK;
    uint32_t scope = GR_HOOK_SCOPE_NONE;
    if (insn->scope) scope = hook_scope((ptx_scope)insn->scope);
    else if (sem == PTX_SEM_VOLATILE || sem == PTX_SEM_MMIO) scope = GR_HOOK_SCOPE_SYS;
    else if (atomic || sem != PTX_SEM_WEAK) scope = GR_HOOK_SCOPE_GPU;
    uint32_t op = atomic ? hook_op((ptx_subop)insn->subop) : GR_HOOK_OP_NONE;

    plan->kind = HOOK_ACCESS;
    plan->stat = STAT_ACCESS;
    plan->addr = addr;
    plan->info = GR_HOOK_ACCESS_INFO((uint32_t)size, kind_bits, hook_sem(sem), scope, space, op);
    return true;
}

static bool classify_cp_async(const ptx_module *m, const ptx_function *f, const ptx_insn *insn,
                              hook_plan *plan, gr_error *err) {
    switch (insn->subop) {
    case PTX_SUBOP_COMMIT_GROUP:
        plan->kind = HOOK_SYNC;
        plan->stat = STAT_ASYNC_GROUP;
        plan->info = GR_HOOK_SYNC_INFO(GR_HOOK_EV_ASYNC_COMMIT, 0u, 0u, 0u, 0u);
        return sync_arg(f, NULL, &plan->arg0) && sync_arg(f, NULL, &plan->arg1);
    case PTX_SUBOP_WAIT_GROUP:
    case PTX_SUBOP_WAIT_ALL:
        plan->kind = HOOK_SYNC;
        plan->stat = STAT_ASYNC_GROUP;
        plan->info = GR_HOOK_SYNC_INFO(GR_HOOK_EV_ASYNC_WAIT, 0u, 0u, 0u, 0u);
        if (!sync_arg(f, insn->subop == PTX_SUBOP_WAIT_GROUP && insn->noperands > 0
                             ? &insn->operands[0] : NULL, &plan->arg0) ||
            !sync_arg(f, NULL, &plan->arg1))
            return refuse(m, insn, "group count is not an immediate or 32-bit register", err);
        return true;
    case PTX_SUBOP_NONE: break;
    default: return refuse(m, insn, "unknown cp.async form", err);
    }
    /* cp.async.ca|cg.shared{::cta}.global [dst], [src], cp-size{, src-size|ignore-src}{, policy} */
    if (insn->space != PTX_SPACE_SHARED || insn->space2 != PTX_SPACE_GLOBAL || insn->noperands < 3 ||
        insn->operands[0].kind != PTX_OPND_ADDR || insn->operands[1].kind != PTX_OPND_ADDR ||
        insn->operands[2].kind != PTX_OPND_IMM_INT || insn->operands[2].u.imm == 0 ||
        insn->operands[2].u.imm > 255)
        return refuse(m, insn, "only cp.async.shared.global [dst], [src], size is understood", err);
    for (int i = 0; i < 2; i++) {
        const ptx_operand *a = &insn->operands[i];
        if (a->addr_base == PTX_ADDR_REG && reg_size(f, a->addr_reg) != 4 && reg_size(f, a->addr_reg) != 8)
            return refuse(m, insn, "address register is neither 32 nor 64 bits", err);
    }
    uint32_t size = (uint32_t)insn->operands[2].u.imm;
    plan->kind = HOOK_CP_ASYNC;
    plan->stat = STAT_ACCESS;
    plan->addr = &insn->operands[1];
    plan->addr2 = &insn->operands[0];
    plan->info = GR_HOOK_ACCESS_INFO(size, GR_HOOK_ACCESS_READ, GR_HOOK_SEM_WEAK, GR_HOOK_SCOPE_NONE,
                                     GR_HOOK_SPACE_GLOBAL, GR_HOOK_OP_NONE);
    plan->info2 = GR_HOOK_ACCESS_INFO(size, GR_HOOK_ACCESS_WRITE | GR_HOOK_ACCESS_ASYNC,
                                      GR_HOOK_SEM_WEAK, GR_HOOK_SCOPE_NONE, GR_HOOK_SPACE_SHARED,
                                      GR_HOOK_OP_NONE);
    plan->src_size = NULL;
    if (insn->noperands >= 4) {
        const ptx_operand *o = &insn->operands[3];
        if (o->kind == PTX_OPND_IMM_INT) {
            uint32_t src = o->u.imm < size ? (uint32_t)o->u.imm : size;
            plan->info = (plan->info & ~GR_HOOK_ACCESS_SIZE_MASK) | src;
        } else if (o->kind == PTX_OPND_REG && !o->has_component) {
            ptx_type t = (ptx_type)f->regs[o->u.reg].type;
            if (t == PTX_TYPE_PRED || reg_size(f, o->u.reg) == 4) plan->src_size = o;
            /* a 64-bit register is the cache policy: no effect on the bytes read */
            else if (reg_size(f, o->u.reg) != 8)
                return refuse(m, insn, "cannot read the source size operand", err);
        } else {
            return refuse(m, insn, "cannot read the source size operand", err);
        }
    }
    return true;
}

static bool classify_barrier(const ptx_module *m, const ptx_function *f, const ptx_insn *insn,
                             hook_plan *plan, gr_error *err) {
    plan->kind = HOOK_SYNC;
    if (insn->subop == PTX_SUBOP_WARP) { /* bar.warp.sync membermask */
        plan->stat = STAT_WARP_SYNC;
        plan->info = GR_HOOK_SYNC_INFO(GR_HOOK_EV_WARP_SYNC, GR_HOOK_SCOPE_NONE, 0u, 0u, 0u);
        if (insn->noperands != 1 || !sync_arg(f, &insn->operands[0], &plan->arg0) ||
            !sync_arg(f, NULL, &plan->arg1))
            return refuse(m, insn, "member mask is not an immediate or 32-bit register", err);
        return true;
    }
    plan->stat = STAT_BARRIER;
    uint32_t event = GR_HOOK_EV_BARRIER, op = GR_HOOK_OP_NONE;
    int id_index = 0;
    int count_index = 1;
    int nargs = insn->noperands;
    if (insn->subop == PTX_SUBOP_ARRIVE) {
        event = GR_HOOK_EV_BARRIER_ARRIVE;
    } else if (insn->subop == PTX_SUBOP_RED) {
        /* bar.red.op d, a{, b}, {!}c */
        event = GR_HOOK_EV_BARRIER_RED;
        op = hook_op((ptx_subop)insn->redop);
        id_index = 1;
        count_index = 2;
        nargs = insn->noperands - 1; /* the last operand is the predicate */
    } else if (insn->subop != PTX_SUBOP_NONE || !(insn->flags & PTX_F_SYNC)) {
        return refuse(m, insn, "unknown barrier form", err);
    }
    uint32_t flags = 0;
    if (insn->op == PTX_OP_BAR || (insn->flags & PTX_F_ALIGNED)) flags |= GR_HOOK_SYNC_ALIGNED;
    const ptx_operand *id = id_index < nargs ? &insn->operands[id_index] : NULL;
    const ptx_operand *count = count_index < nargs ? &insn->operands[count_index] : NULL;
    if (count) flags |= GR_HOOK_SYNC_HAS_COUNT;
    uint32_t scope = insn->scope == PTX_SCOPE_CLUSTER ? GR_HOOK_SCOPE_CLUSTER : GR_HOOK_SCOPE_CTA;
    plan->info = GR_HOOK_SYNC_INFO(event, scope, 0u, flags, op);
    if (!sync_arg(f, id, &plan->arg0) || !sync_arg(f, count, &plan->arg1))
        return refuse(m, insn, "barrier id or count is not an immediate or 32-bit register", err);
    return true;
}

static bool classify_fence(const ptx_insn *insn, hook_plan *plan) {
    ptx_sem sem = (ptx_sem)insn->sem;
    if (insn->op == PTX_OP_MEMBAR) sem = PTX_SEM_SC;
    else if (sem == PTX_SEM_NONE) sem = PTX_SEM_ACQ_REL;
    uint32_t scope = hook_scope((ptx_scope)insn->scope);
    uint32_t flags = (insn->flags & PTX_F_PROXY) ? GR_HOOK_SYNC_PROXY : 0u;
    plan->kind = HOOK_SYNC;
    plan->stat = STAT_FENCE;
    plan->info = GR_HOOK_SYNC_INFO(GR_HOOK_EV_FENCE, scope, hook_sem(sem), flags, 0u);
    memset(&plan->arg0, 0, sizeof plan->arg0);
    plan->arg0.kind = PTX_OPND_IMM_INT;
    plan->arg1 = plan->arg0;
    return true;
}

static bool classify_collective(const ptx_module *m, const ptx_function *f, const ptx_insn *insn,
                                hook_plan *plan, gr_error *err) {
    uint32_t event = insn->op == PTX_OP_SHFL ? GR_HOOK_EV_SHFL
                     : insn->op == PTX_OP_VOTE ? GR_HOOK_EV_VOTE
                     : insn->op == PTX_OP_MATCH ? GR_HOOK_EV_MATCH
                                                : GR_HOOK_EV_REDUX;
    plan->kind = HOOK_SYNC;
    plan->stat = STAT_COLLECTIVE;
    uint32_t flags = 0;
    if (insn->flags & PTX_F_SYNC) {
        /* the member mask is the last operand of every .sync collective */
        if (insn->noperands < 2 || !sync_arg(f, &insn->operands[insn->noperands - 1], &plan->arg0))
            return refuse(m, insn, "member mask is not an immediate or 32-bit register", err);
    } else {
        flags |= GR_HOOK_SYNC_IMPLICIT_MASK;
        sync_arg(f, NULL, &plan->arg0);
        plan->arg0.u.imm = 0xffffffffu;
    }
    sync_arg(f, NULL, &plan->arg1);
    plan->info = GR_HOOK_SYNC_INFO(event, GR_HOOK_SCOPE_NONE, 0u, flags,
                                   hook_op((ptx_subop)insn->subop));
    return true;
}

static bool classify(const ptx_module *m, const ptx_function *f, const ptx_insn *insn,
                     const gr_instrument_options *o, hook_plan *plan, gr_error *err) {
    memset(plan, 0, sizeof *plan);
    if (insn->unknown) {
        const char *name;
        size_t n;
        unknown_mnemonic(insn, &name, &n);
        size_t base = 0;
        while (base < n && name[base] != '.') base++;
        uint32_t cls = ptx_opcode_class((ptx_opcode)insn->op);
        if ((cls & (PTX_OPC_MEMORY | PTX_OPC_SYNC)) || insn->op == PTX_OP_RET ||
            insn->op == PTX_OP_EXIT || mnemonic_matters(name, base))
            return refuse(m, insn, "the instrumenter cannot tell what it does to memory or synchronization", err);
        return true;
    }
    switch (insn->op) {
    case PTX_OP_LD:
    case PTX_OP_LDU:
    case PTX_OP_ST:
    case PTX_OP_ATOM:
    case PTX_OP_RED:
        if (!o->accesses) return true;
        return classify_access(m, f, insn, plan, err);
    case PTX_OP_CP_ASYNC:
        if (insn->subop == PTX_SUBOP_NONE ? !o->accesses : !o->sync) return true;
        return classify_cp_async(m, f, insn, plan, err);
    case PTX_OP_SUST:
        /* a surface store writes global memory at an address only the texture unit knows */
        return !o->accesses || refuse(m, insn, "surface stores cannot be instrumented", err);
    case PTX_OP_BAR:
    case PTX_OP_BARRIER:
        return !o->sync || classify_barrier(m, f, insn, plan, err);
    case PTX_OP_MEMBAR:
    case PTX_OP_FENCE:
        return !o->sync || classify_fence(insn, plan);
    case PTX_OP_SHFL:
    case PTX_OP_VOTE:
    case PTX_OP_MATCH:
    case PTX_OP_REDUX:
        return !o->sync || classify_collective(m, f, insn, plan, err);
    case PTX_OP_RET:
    case PTX_OP_EXIT:
        /* exit, or ret of a kernel, ends the thread; ret of a .func returns to its caller */
        if (!o->sync || (insn->op == PTX_OP_RET && !f->is_entry)) return true;
        plan->kind = HOOK_SYNC;
        plan->stat = STAT_EXIT;
        plan->info = GR_HOOK_SYNC_INFO(GR_HOOK_EV_EXIT, 0u, 0u, 0u, 0u);
        return sync_arg(f, NULL, &plan->arg0) && sync_arg(f, NULL, &plan->arg1);
    default:
        return true;
    }
}

/* ---- emission ----------------------------------------------------------------------------------- */

typedef struct emitter {
    ptx_module *m;
    ptx_function *f;
    const ptx_insn *orig; /* the instruction being described: its guard and .loc */
    ptx_stmt *out;        /* statements of the rebuilt body (heap) */
    int32_t nout, capout;
    int32_t reg_addr, reg_addr32, reg_info; /* %gr_addr (b64), %gr_addr32 (b32), %gr_info (b32) */
    gr_error *err;
} emitter;

static bool out_of_memory(emitter *e) {
    return gr_fail(e->err, GR_ERR_NOMEM, "out of memory while instrumenting %s",
                   e->f->name ? e->f->name : "a function");
}

static bool push_stmt(emitter *e, ptx_stmt s) {
    if (e->nout == e->capout) {
        int32_t ncap = e->capout ? e->capout * 2 : 64;
        ptx_stmt *n = realloc(e->out, (size_t)ncap * sizeof *n);
        if (!n) return out_of_memory(e);
        e->out = n;
        e->capout = ncap;
    }
    e->out[e->nout++] = s;
    return true;
}

static int32_t reserved_reg(emitter *e, int32_t *slot, const char *name, ptx_type type) {
    if (*slot < 0) *slot = ptx_function_add_reg(e->m, e->f, name, type);
    return *slot;
}

/* A new instruction under the described instruction's .loc; `guarded` copies its guard. */
static ptx_insn *emit(emitter *e, ptx_opcode op, const ptx_qual *quals, int nquals, bool guarded) {
    ptx_insn *insn = ptx_insn_new(e->m, e->f, op);
    if (!insn) {
        out_of_memory(e);
        return NULL;
    }
    for (int i = 0; i < nquals; i++) {
        if (!ptx_insn_add_qual(insn, quals[i])) {
            gr_fail(e->err, GR_ERR_INTERNAL, "instrumenter built an invalid %s", ptx_opcode_name(op));
            return NULL;
        }
    }
    insn->loc = e->orig->loc;
    if (guarded) {
        insn->guard_reg = e->orig->guard_reg;
        insn->guard_negated = e->orig->guard_negated;
    }
    ptx_stmt s = {.kind = PTX_STMT_INSN, .decl = -1, .text = NULL, .insn = insn};
    return push_stmt(e, s) ? insn : NULL;
}

static bool emit3(emitter *e, ptx_opcode op, const ptx_qual *quals, int nquals, ptx_operand d,
                  ptx_operand a, const ptx_operand *b) {
    ptx_insn *insn = emit(e, op, quals, nquals, false);
    if (!insn) return false;
    ptx_insn_add_operand(insn, d);
    ptx_insn_add_operand(insn, a);
    if (b) ptx_insn_add_operand(insn, *b);
    return true;
}

/* The state space a variable named `name` was declared in (function body first), or NONE. */
static ptx_space symbol_space(const ptx_module *m, const ptx_function *f, const char *name) {
    for (int32_t i = 0; i < f->nvars; i++)
        if (f->vars[i].name && strcmp(f->vars[i].name, name) == 0) return (ptx_space)f->vars[i].space;
    for (int32_t i = 0; i < m->nvars; i++)
        if (m->vars[i].name && strcmp(m->vars[i].name, name) == 0) return (ptx_space)m->vars[i].space;
    return PTX_SPACE_NONE;
}

/* Emits what puts the 64-bit address of `a` (an ADDR operand) into an operand for the hook. */
static bool emit_address(emitter *e, const ptx_operand *a, ptx_operand *out) {
    static const ptx_qual u64[] = {PTX_Q_U64}, u32[] = {PTX_Q_U32};
    static const ptx_qual cvt_u64_u32[] = {PTX_Q_U64, PTX_Q_U32};
    if (a->addr_base == PTX_ADDR_REG && a->offset == 0 && reg_size(e->f, a->addr_reg) == 8) {
        *out = ptx_opnd_reg(a->addr_reg); /* already a 64-bit address: pass it as it is */
        return true;
    }
    int32_t r = reserved_reg(e, &e->reg_addr, RESERVED_REG_PREFIX "addr", PTX_TYPE_B64);
    if (r < 0) return out_of_memory(e);
    ptx_operand dst = ptx_opnd_reg(r);
    ptx_operand off = ptx_opnd_imm((uint64_t)a->offset);
    *out = dst;
    switch (a->addr_base) {
    case PTX_ADDR_REG:
        if (reg_size(e->f, a->addr_reg) == 8)
            return emit3(e, PTX_OP_ADD, u64, 1, dst, ptx_opnd_reg(a->addr_reg), &off);
        /* a 32-bit (shared-window) address: add in 32 bits as the access does, then widen */
        if (a->offset == 0)
            return emit3(e, PTX_OP_CVT, cvt_u64_u32, 2, dst, ptx_opnd_reg(a->addr_reg), NULL);
        {
            int32_t r32 = reserved_reg(e, &e->reg_addr32, RESERVED_REG_PREFIX "addr32", PTX_TYPE_B32);
            if (r32 < 0) return out_of_memory(e);
            ptx_operand off32 = ptx_opnd_imm((uint64_t)a->offset & 0xffffffffu);
            return emit3(e, PTX_OP_ADD, u32, 1, ptx_opnd_reg(r32), ptx_opnd_reg(a->addr_reg), &off32) &&
                   emit3(e, PTX_OP_CVT, cvt_u64_u32, 2, dst, ptx_opnd_reg(r32), NULL);
        }
    case PTX_ADDR_SYMBOL: {
        /* mov gives the address in the variable's own space; a generic access needs the
         * generic address of the variable, which cvta gives */
        ptx_space var_space = symbol_space(e->m, e->f, a->addr_symbol);
        bool generic = e->orig->space == PTX_SPACE_NONE && e->orig->op != PTX_OP_CP_ASYNC;
        if (generic && (var_space == PTX_SPACE_SHARED || var_space == PTX_SPACE_GLOBAL)) {
            const ptx_qual cvta[] = {var_space == PTX_SPACE_SHARED ? PTX_Q_SHARED : PTX_Q_GLOBAL,
                                     PTX_Q_U64};
            if (!emit3(e, PTX_OP_CVTA, cvta, 2, dst, ptx_opnd_symbol(a->addr_symbol, 0), NULL))
                return false;
        } else if (!emit3(e, PTX_OP_MOV, u64, 1, dst, ptx_opnd_symbol(a->addr_symbol, 0), NULL)) {
            return false;
        }
        return a->offset == 0 || emit3(e, PTX_OP_ADD, u64, 1, dst, dst, &off);
    }
    default: /* [imm]: an absolute address */
        return emit3(e, PTX_OP_MOV, u64, 1, dst, off, NULL);
    }
}

static ptx_operand list_operand(emitter *e, const ptx_operand *elems, uint32_t n) {
    ptx_operand l = {0};
    l.kind = PTX_OPND_LIST;
    l.u.list.elems = gr_arena_alloc(&e->m->arena, n * sizeof *elems);
    if (l.u.list.elems) {
        memcpy(l.u.list.elems, elems, n * sizeof *elems);
        l.u.list.nelems = n;
    }
    return l;
}

/* call{.uni} hook, (args): .uni only when unguarded, since then every active lane calls it. */
static bool emit_call(emitter *e, const char *hook, const ptx_operand *args, uint32_t nargs) {
    static const ptx_qual uni[] = {PTX_Q_UNI};
    bool guarded = e->orig->guard_reg >= 0;
    ptx_insn *call = emit(e, PTX_OP_CALL, uni, guarded ? 0 : 1, true);
    if (!call) return false;
    ptx_operand list = list_operand(e, args, nargs);
    if (!list.u.list.elems) return out_of_memory(e);
    ptx_insn_add_operand(call, ptx_opnd_symbol(hook, 0));
    ptx_insn_add_operand(call, list);
    return true;
}

static bool emit_access_call(emitter *e, const ptx_operand *addr, ptx_operand info) {
    ptx_operand args[3];
    if (!emit_address(e, addr, &args[0])) return false;
    args[1] = info;
    args[2] = ptx_opnd_imm(e->orig->id);
    return emit_call(e, GR_HOOK_ACCESS_NAME, args, 3);
}

static bool emit_hooks(emitter *e, const hook_plan *plan) {
    switch (plan->kind) {
    case HOOK_ACCESS:
        return emit_access_call(e, plan->addr, ptx_opnd_imm(plan->info));
    case HOOK_CP_ASYNC: {
        ptx_operand info = ptx_opnd_imm(plan->info);
        if (plan->src_size) {
            /* the bytes read depend on a run-time operand: build the info word at run time */
            static const ptx_qual min_u32[] = {PTX_Q_U32}, or_b32[] = {PTX_Q_B32};
            int32_t r = reserved_reg(e, &e->reg_info, RESERVED_REG_PREFIX "info", PTX_TYPE_B32);
            if (r < 0) return out_of_memory(e);
            info = ptx_opnd_reg(r);
            ptx_operand size = ptx_opnd_imm(GR_HOOK_ACCESS_SIZE(plan->info));
            ptx_operand base = ptx_opnd_imm(plan->info & ~GR_HOOK_ACCESS_SIZE_MASK);
            if (e->f->regs[plan->src_size->u.reg].type == PTX_TYPE_PRED) {
                /* ignore-src: nothing is read when the predicate holds */
                static const ptx_qual selp_b32[] = {PTX_Q_B32};
                ptx_insn *s = emit(e, PTX_OP_SELP, selp_b32, 1, false);
                if (!s) return false;
                ptx_insn_add_operand(s, info);
                ptx_insn_add_operand(s, base);
                ptx_insn_add_operand(s, ptx_opnd_imm(plan->info));
                ptx_insn_add_operand(s, ptx_opnd_reg(plan->src_size->u.reg));
            } else {
                ptx_operand src = ptx_opnd_reg(plan->src_size->u.reg);
                if (!emit3(e, PTX_OP_MIN, min_u32, 1, info, src, &size) ||
                    !emit3(e, PTX_OP_OR, or_b32, 1, info, info, &base))
                    return false;
            }
        }
        return emit_access_call(e, plan->addr, info) &&
               emit_access_call(e, plan->addr2, ptx_opnd_imm(plan->info2));
    }
    case HOOK_SYNC: {
        ptx_operand args[4] = {ptx_opnd_imm(plan->info), ptx_opnd_imm(e->orig->id), plan->arg0,
                               plan->arg1};
        return emit_call(e, GR_HOOK_SYNC_NAME, args, 4);
    }
    default:
        return true;
    }
}

static void count(gr_instrument_stats *s, const hook_plan *plan) {
    if (plan->kind == HOOK_SKIPPED) {
        s->skipped_local_param_const++;
        return;
    }
    switch (plan->stat) {
    case STAT_ACCESS: s->accesses++; break;
    case STAT_BARRIER: s->barriers++; break;
    case STAT_WARP_SYNC: s->warp_syncs++; break;
    case STAT_FENCE: s->fences++; break;
    case STAT_COLLECTIVE: s->collectives++; break;
    case STAT_EXIT: s->exits++; break;
    case STAT_ASYNC_GROUP: s->async_groups++; break;
    case STAT_NONE: break;
    }
}

/* The module's function a call instruction calls, or -1 (an indirect call, an unknown name). */
static int32_t callee_index(const ptx_module *m, const ptx_insn *call) {
    for (uint32_t k = 0; k < call->noperands; k++) {
        if (call->operands[k].kind != PTX_OPND_SYMBOL) continue;
        for (int32_t fi = 0; fi < m->nfunctions; fi++)
            if (m->functions[fi].name && strcmp(m->functions[fi].name, call->operands[k].u.symbol) == 0)
                return fi;
        return -1;
    }
    return -1;
}

/* `user` (ptx_mark_user_functions): hooks in functions outside the user's file carry
 * GR_HOOK_IN_LIBRARY, and calls from the user's functions into them get a CALL event first, so
 * that findings there are reported at the user's call. */
static bool instrument_function(ptx_module *m, ptx_function *f, const bool *user, bool in_user,
                                const gr_instrument_options *o, gr_instrument_stats *stats,
                                gr_error *err) {
    emitter e = {.m = m, .f = f, .reg_addr = -1, .reg_addr32 = -1, .reg_info = -1, .err = err};
    bool ok = true;
    for (int32_t i = 0; i < f->nstmts && ok; i++) {
        ptx_stmt s = f->stmts[i];
        if (s.kind == PTX_STMT_INSN && s.insn) {
            hook_plan plan;
            ok = classify(m, f, s.insn, o, &plan, err);
            if (ok && plan.kind != HOOK_NONE) {
                count(stats, &plan);
                e.orig = s.insn;
                if (!in_user) {
                    plan.info |= GR_HOOK_IN_LIBRARY;
                    plan.info2 |= GR_HOOK_IN_LIBRARY;
                }
                ok = emit_hooks(&e, &plan);
            }
            int32_t callee = s.insn->op == PTX_OP_CALL && in_user && o->sync ? callee_index(m, s.insn) : -1;
            if (ok && callee >= 0 && !user[callee]) {
                hook_plan call = {.kind = HOOK_SYNC,
                                  .info = GR_HOOK_SYNC_INFO(GR_HOOK_EV_CALL, 0u, 0u, 0u, 0u)};
                e.orig = s.insn;
                stats->library_calls++;
                ok = sync_arg(f, NULL, &call.arg0) && sync_arg(f, NULL, &call.arg1) &&
                     emit_hooks(&e, &call);
            }
        }
        ok = ok && push_stmt(&e, s);
    }
    if (ok && e.nout != f->nstmts) {
        ptx_stmt *body = gr_arena_alloc(&m->arena, (size_t)e.nout * sizeof *body);
        if (!body) {
            ok = out_of_memory(&e);
        } else {
            memcpy(body, e.out, (size_t)e.nout * sizeof *body);
            f->stmts = body;
            f->nstmts = f->stmts_cap = e.nout;
        }
    }
    free(e.out);
    return ok;
}

/* ---- hook declarations ------------------------------------------------------------------------- */

static bool add_hook_decls(ptx_module *m, gr_error *err) {
    static const struct {
        const char *name;
        int nparams;
        const char *params[4];
        ptx_type types[4];
    } hooks[2] = {
        {GR_HOOK_ACCESS_NAME, 3, {"addr", "info", "id"}, {PTX_TYPE_B64, PTX_TYPE_B32, PTX_TYPE_B32}},
        {GR_HOOK_SYNC_NAME, 4, {"info", "id", "arg0", "arg1"},
         {PTX_TYPE_B32, PTX_TYPE_B32, PTX_TYPE_B32, PTX_TYPE_B32}},
    };
    ptx_function *fns = gr_arena_alloc(&m->arena, (size_t)(m->nfunctions + 2) * sizeof *fns);
    ptx_item *items = gr_arena_alloc(&m->arena, (size_t)(m->nitems + 2) * sizeof *items);
    if (!fns || !items) return gr_fail(err, GR_ERR_NOMEM, "out of memory while instrumenting");
    if (m->nfunctions) memcpy(fns, m->functions, (size_t)m->nfunctions * sizeof *fns);
    /* declarations go right after .version/.target/.address_size, before any use */
    int32_t at = 0;
    while (at < m->nitems && (m->items[at].kind == PTX_ITEM_VERSION || m->items[at].kind == PTX_ITEM_TARGET ||
                              m->items[at].kind == PTX_ITEM_ADDRESS_SIZE))
        at++;
    if (at) memcpy(items, m->items, (size_t)at * sizeof *items);
    for (int h = 0; h < 2; h++) {
        ptx_function *f = &fns[m->nfunctions + h];
        memset(f, 0, sizeof *f);
        f->name = hooks[h].name;
        f->is_extern = true;
        f->params = gr_arena_alloc(&m->arena, (size_t)hooks[h].nparams * sizeof *f->params);
        if (!f->params) return gr_fail(err, GR_ERR_NOMEM, "out of memory while instrumenting");
        f->nparams = hooks[h].nparams;
        for (int p = 0; p < hooks[h].nparams; p++) {
            f->params[p].name = hooks[h].params[p];
            f->params[p].space = PTX_SPACE_PARAM;
            f->params[p].type = (uint8_t)hooks[h].types[p];
            f->params[p].vec = 1;
        }
        items[at + h] = (ptx_item){.kind = PTX_ITEM_FUNCTION, .index = m->nfunctions + h, .text = NULL};
    }
    if (m->nitems > at) memcpy(items + at + 2, m->items + at, (size_t)(m->nitems - at) * sizeof *items);
    m->functions = fns;
    m->nfunctions += 2;
    m->items = items;
    m->nitems += 2;
    return true;
}

/* ---- API ---------------------------------------------------------------------------------------- */

void gr_instrument_options_default(gr_instrument_options *o) {
    o->accesses = true;
    o->sync = true;
}

bool gr_instrument_module(ptx_module *m, const gr_instrument_options *o,
                          gr_instrument_stats *stats, gr_error *err) {
    gr_instrument_options defaults;
    if (!o) {
        gr_instrument_options_default(&defaults);
        o = &defaults;
    }
    gr_instrument_stats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof *stats);
    if (m->address_size != 64)
        return gr_fail(err, GR_ERR_UNSUPPORTED, "%s: only .address_size 64 PTX can be instrumented",
                       m->source_name ? m->source_name : "<ptx>");

    /* pass 1: refuse what cannot be instrumented before changing anything */
    for (int32_t fi = 0; fi < m->nfunctions; fi++) {
        const ptx_function *f = &m->functions[fi];
        if (f->name && strncmp(f->name, RESERVED_FUNC_PREFIX, strlen(RESERVED_FUNC_PREFIX)) == 0)
            return gr_fail(err, GR_ERR_INPUT, "%s: the module already declares %s (instrumented twice?)",
                           m->source_name ? m->source_name : "<ptx>", f->name);
        for (int32_t r = 0; r < f->nregs; r++)
            if (f->regs[r].name && strncmp(f->regs[r].name, RESERVED_REG_PREFIX,
                                           strlen(RESERVED_REG_PREFIX)) == 0)
                return gr_fail(err, GR_ERR_INPUT, "%s: register %s in %s uses the reserved prefix %s",
                               m->source_name ? m->source_name : "<ptx>", f->regs[r].name,
                               f->name ? f->name : "?", RESERVED_REG_PREFIX);
        for (int32_t i = 0; i < f->nstmts; i++) {
            hook_plan plan;
            if (f->stmts[i].kind == PTX_STMT_INSN && f->stmts[i].insn &&
                !classify(m, f, f->stmts[i].insn, o, &plan, err))
                return false;
        }
    }

    /* pass 2: rewrite */
    bool *user = calloc((size_t)m->nfunctions + 1, sizeof *user);
    if (!user) return gr_fail(err, GR_ERR_NOMEM, "out of memory while instrumenting");
    ptx_mark_user_functions(m, user);
    bool ok = true;
    for (int32_t fi = 0; ok && fi < m->nfunctions; fi++) {
        ptx_function *f = &m->functions[fi];
        if (f->has_body) ok = instrument_function(m, f, user, user[fi], o, stats, err);
    }
    free(user);
    return ok && add_hook_decls(m, err);
}

const char *gr_instrument_stub_hooks_ptx(void) {
    return "//\n"
           "// Do-nothing implementations of the gpurace instrumentation hooks (see hook_abi.h).\n"
           "//\n"
           ".version 7.0\n"
           ".target sm_75\n"
           ".address_size 64\n"
           "\n"
           ".visible .func " GR_HOOK_ACCESS_NAME "(\n"
           "\t.param .b64 addr,\n"
           "\t.param .b32 info,\n"
           "\t.param .b32 id\n"
           ")\n"
           "{\n"
           "\tret;\n"
           "}\n"
           "\n"
           ".visible .func " GR_HOOK_SYNC_NAME "(\n"
           "\t.param .b32 info,\n"
           "\t.param .b32 id,\n"
           "\t.param .b32 arg0,\n"
           "\t.param .b32 arg1\n"
           ")\n"
           "{\n"
           "\tret;\n"
           "}\n";
}
