/* sim_decode.c — PTX IR to the simulator's pre-resolved program (see sim_internal.h).
 *
 * Per function: labels become instruction indices, registers become slot numbers, every
 * immediate becomes a row of the constant pool, .local/.param variables of the body get offsets
 * in the function's frame, and special-register or negated-predicate source operands get a
 * preceding helper instruction writing a temporary slot. Anything the interpreter cannot execute
 * exactly is refused here, with its location, before any thread runs. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/sim/sim_internal.h"
#include "jit/ptx/ptx_srcmap.h"

/* ---- growable arrays ------------------------------------------------------------------------- */

static bool grow(void **arr, int32_t *cap, int32_t need, size_t elem, gr_error *err) {
    if (need <= *cap) return true;
    int32_t ncap = *cap ? *cap * 2 : 64;
    while (ncap < need) ncap *= 2;
    void *n = realloc(*arr, (size_t)ncap * elem);
    if (!n) return gr_fail(err, GR_ERR_NOMEM, "out of memory decoding PTX");
    memset((char *)n + (size_t)*cap * elem, 0, (size_t)(ncap - *cap) * elem);
    *arr = n;
    *cap = ncap;
    return true;
}

/* ---- per-function decoding context ------------------------------------------------------------ */

typedef struct label_ref {
    const char *name;
    int32_t code_index; /* instruction to patch */
} label_ref;

typedef struct named_index {
    const char *name;
    int32_t index;
} named_index;

typedef enum local_kind { LV_NONE, LV_FRAME, LV_SHARED } local_kind;

typedef struct local_var {
    const char *name;
    local_kind kind;
    uint64_t off;  /* frame offset or shared offset */
    uint64_t size;
    uint8_t space;
} local_var;

typedef struct decoder {
    sim_program *p;
    const ptx_module *m;
    int32_t code_cap;
    gr_error *err;
    /* current function */
    int32_t fi;
    const ptx_function *fn;
    int32_t next_temp;
    named_index *labels;
    int32_t nlabels, labels_cap;
    label_ref *refs;
    int32_t nrefs, refs_cap;
    local_var *locals; /* body variables and formal parameters, latest declaration wins */
    int32_t nlocals, locals_cap;
    uint32_t frame_size;
    const ptx_insn *cur;
} decoder;

void sim_insn_location(const ptx_module *m, const ptx_insn *insn, char *buf, size_t n,
                       const char **file, int *line) {
    *file = m->source_name ? m->source_name : "<ptx>";
    *line = (int)insn->ptx_line;
    if (insn->loc >= 0 && insn->loc < m->nlocs) {
        const ptx_loc *l = &m->locs[insn->loc];
        for (int i = 0; i < m->nfiles; i++) {
            if (m->files[i].index == l->file && l->line > 0) {
                *file = m->files[i].path;
                *line = l->line;
                break;
            }
        }
    }
    snprintf(buf, n, "%s:%d", *file, *line);
}

/* The instruction as written, for messages: "tex.1d.v4.f32.s32". */
static void insn_spelling(const ptx_insn *insn, char *buf, size_t n) {
    if (insn->unknown && insn->text) {
        snprintf(buf, n, "%s", insn->text);
        char *sp = strpbrk(buf, " \t");
        if (sp && buf[0] != '@') *sp = '\0';
        return;
    }
    size_t len = (size_t)snprintf(buf, n, "%s", ptx_opcode_name((ptx_opcode)insn->op));
    for (int i = 0; i < insn->nquals && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, ".%s", ptx_qual_name((ptx_qual)insn->quals[i]));
}

static bool unsupported(decoder *d, const char *why) {
    char spelled[128], where[600];
    const char *file;
    int line;
    insn_spelling(d->cur, spelled, sizeof spelled);
    sim_insn_location(d->m, d->cur, where, sizeof where, &file, &line);
    return gr_fail_at(d->err, GR_ERR_UNSUPPORTED, file, line, 0,
                      "unsupported PTX instruction %s at %s (PTX line %u)%s%s", spelled, where,
                      d->cur->ptx_line, why ? ": " : "", why ? why : "");
}

/* ---- operands ---------------------------------------------------------------------------------- */

/* The special registers the simulator gives a value; any other fails loading, never reads 0. */
static bool sreg_supported(decoder *d, const ptx_operand *o) {
    switch (o->u.sreg) {
    case PTX_SREG_TID: case PTX_SREG_NTID: case PTX_SREG_CTAID: case PTX_SREG_NCTAID:
    case PTX_SREG_LANEID: case PTX_SREG_WARPID: case PTX_SREG_NWARPID: case PTX_SREG_SMID:
    case PTX_SREG_NSMID: case PTX_SREG_GRIDID:
    case PTX_SREG_LANEMASK_EQ: case PTX_SREG_LANEMASK_LE: case PTX_SREG_LANEMASK_LT:
    case PTX_SREG_LANEMASK_GE: case PTX_SREG_LANEMASK_GT:
    case PTX_SREG_CLOCK: case PTX_SREG_CLOCK_HI: case PTX_SREG_CLOCK64: case PTX_SREG_GLOBALTIMER:
    case PTX_SREG_GLOBALTIMER_LO: case PTX_SREG_GLOBALTIMER_HI:
    case PTX_SREG_DYNAMIC_SMEM_SIZE: case PTX_SREG_TOTAL_SMEM_SIZE: case PTX_SREG_AGGR_SMEM_SIZE:
    /* clusters of one block: the launches the simulator runs */
    case PTX_SREG_CLUSTERID: case PTX_SREG_NCLUSTERID: case PTX_SREG_CLUSTER_CTAID:
    case PTX_SREG_CLUSTER_NCTAID: case PTX_SREG_CLUSTER_CTARANK: case PTX_SREG_CLUSTER_NCTARANK:
    case PTX_SREG_IS_EXPLICIT_CLUSTER:
        return true;
    case PTX_SREG_RESERVED_SMEM_OFFSET_BEGIN: case PTX_SREG_RESERVED_SMEM_OFFSET_END:
    case PTX_SREG_RESERVED_SMEM_OFFSET_CAP: case PTX_SREG_RESERVED_SMEM_OFFSET_0:
    case PTX_SREG_RESERVED_SMEM_OFFSET_1:
        d->p->uses_reserved_smem = true;
        return true;
    case PTX_SREG_ENVREG:
        /* %envreg1:%envreg2 is the grid-sync workspace of a cooperative launch */
        if (o->component == 1 || o->component == 2) {
            d->p->uses_grid_workspace = true;
            return true;
        }
        return unsupported(d, "a driver-defined %envreg the simulator does not provide");
    default:
        return unsupported(d, "a special register the simulator does not provide");
    }
}

static int type_bits(int t) {
    switch (t) {
    case PTX_TYPE_PRED: return 1;
    case PTX_TYPE_B8: case PTX_TYPE_U8: case PTX_TYPE_S8: return 8;
    case PTX_TYPE_B16: case PTX_TYPE_U16: case PTX_TYPE_S16: case PTX_TYPE_F16:
    case PTX_TYPE_BF16: return 16;
    case PTX_TYPE_B32: case PTX_TYPE_U32: case PTX_TYPE_S32: case PTX_TYPE_F32:
    case PTX_TYPE_F16X2: case PTX_TYPE_BF16X2: case PTX_TYPE_TF32: return 32;
    case PTX_TYPE_B64: case PTX_TYPE_U64: case PTX_TYPE_S64: case PTX_TYPE_F64: return 64;
    default: return 0;
    }
}

static sim_opnd add_const(decoder *d, uint64_t v) {
    sim_program *p = d->p;
    /* small programs repeat the same few constants: look back a little before adding */
    for (int32_t i = p->nconsts - 1; i >= 0 && i >= p->nconsts - 64; i--)
        if (p->consts[(size_t)i * SIM_LANES] == v) return ~i;
    int32_t rows = p->consts_cap / SIM_LANES;
    if (p->nconsts + 1 > rows) {
        int32_t cap = p->consts_cap;
        if (!grow((void **)&p->consts, &cap, (p->nconsts + 1) * SIM_LANES, sizeof(uint64_t),
                  d->err))
            return SIM_NO_OPND;
        p->consts_cap = cap;
    }
    for (int l = 0; l < SIM_LANES; l++) p->consts[(size_t)p->nconsts * SIM_LANES + l] = v;
    return ~(p->nconsts++);
}

static sim_insn *emit(decoder *d) {
    if (!grow((void **)&d->p->code, &d->code_cap, d->p->ncode + 1, sizeof(sim_insn), d->err))
        return NULL;
    sim_insn *in = &d->p->code[d->p->ncode++];
    memset(in, 0, sizeof *in);
    in->guard = SIM_NO_OPND;
    in->addr = SIM_NO_OPND;
    in->bb = -1;
    in->target = -1;
    in->call = -1;
    for (int i = 0; i < 4; i++) in->d[i] = in->a[i] = SIM_NO_OPND;
    in->id = d->cur ? d->cur->id : 0;
    in->src = d->cur;
    in->vec = 1;
    return in;
}

static const local_var *find_local(decoder *d, const char *name) {
    for (int32_t i = d->nlocals - 1; i >= 0; i--)
        if (strcmp(d->locals[i].name, name) == 0) return &d->locals[i];
    return NULL;
}

static const sim_global_var *find_global(decoder *d, const char *name) {
    for (int32_t i = 0; i < d->p->nvars; i++)
        if (strcmp(d->p->vars[i].var->name, name) == 0) return &d->p->vars[i];
    return NULL;
}



/* Kernel parameter `name` of the current function: its offset in the parameter buffer. */
static bool kernel_param_offset(const ptx_function *fn, const char *name, uint64_t *off);

/* The value a symbol operand stands for when it is a constant (global/shared/const variables,
 * kernel parameters); false for frame-relative symbols. */
static bool symbol_constant(decoder *d, const char *name, int64_t offset, uint64_t *value,
                            bool *is_frame, uint64_t *frame_off) {
    *is_frame = false;
    const local_var *lv = find_local(d, name);
    if (lv) {
        if (lv->kind == LV_FRAME) {
            *is_frame = true;
            *frame_off = lv->off + (uint64_t)offset;
            return false;
        }
        *value = lv->off + (uint64_t)offset; /* shared offset */
        return true;
    }
    const sim_global_var *gv = find_global(d, name);
    if (gv) {
        *value = gv->addr + (uint64_t)offset;
        return true;
    }
    uint64_t po;
    if (d->fn->is_entry && kernel_param_offset(d->fn, name, &po)) {
        *value = po + (uint64_t)offset;
        return true;
    }
    return false;
}

/* A source operand as a slot/constant; may emit a helper instruction before the current one. */
static bool src_opnd(decoder *d, const ptx_operand *o, int type, sim_opnd *out) {
    switch (o->kind) {
    case PTX_OPND_REG: {
        if (o->has_component) return unsupported(d, "vector register elements");
        if (o->u.reg < 0 || o->u.reg >= d->fn->nregs) return unsupported(d, "bad register");
        if (!o->negated) {
            *out = o->u.reg;
            return true;
        }
        sim_insn *h = emit(d);
        if (!h) return false;
        h->h = H_PRED_NOT;
        h->bits = 1;
        h->a[0] = o->u.reg;
        h->d[0] = d->next_temp++;
        *out = h->d[0];
        return true;
    }
    case PTX_OPND_IMM_INT: {
        uint64_t v = o->u.imm;
        if (type == PTX_TYPE_F32) {
            float f = (float)(int64_t)v;
            uint32_t b;
            memcpy(&b, &f, 4);
            v = b;
        } else if (type == PTX_TYPE_F64) {
            double f = (double)(int64_t)v;
            memcpy(&v, &f, 8);
        }
        *out = add_const(d, v);
        return *out != SIM_NO_OPND;
    }
    case PTX_OPND_IMM_F32: {
        uint64_t v = o->u.f32_bits;
        if (type == PTX_TYPE_F64) {
            float f;
            uint32_t b = o->u.f32_bits;
            memcpy(&f, &b, 4);
            double x = f;
            memcpy(&v, &x, 8);
        }
        *out = add_const(d, v);
        return *out != SIM_NO_OPND;
    }
    case PTX_OPND_IMM_F64: {
        uint64_t v = o->u.f64_bits;
        if (type == PTX_TYPE_F32) {
            double x;
            memcpy(&x, &v, 8);
            float f = (float)x;
            uint32_t b;
            memcpy(&b, &f, 4);
            v = b;
        }
        *out = add_const(d, v);
        return *out != SIM_NO_OPND;
    }
    case PTX_OPND_SREG: {
        if (!sreg_supported(d, o)) return false;
        sim_insn *h = emit(d);
        if (!h) return false;
        h->h = H_MOV_SREG;
        h->imm = (int64_t)o->u.sreg | ((int64_t)o->component << 16);
        h->bits = (uint8_t)(type_bits(type) ? type_bits(type) : 32);
        h->d[0] = d->next_temp++;
        *out = h->d[0];
        return true;
    }
    case PTX_OPND_SYMBOL: {
        uint64_t v, foff;
        bool frame;
        if (symbol_constant(d, o->u.symbol, o->offset, &v, &frame, &foff)) {
            *out = add_const(d, v);
            return *out != SIM_NO_OPND;
        }
        int32_t fi = ptx_module_find_function(d->m, o->u.symbol);
        if (!frame && fi >= 0) {
            *out = add_const(d, SIM_FUNC_BASE + 16ull * (uint64_t)fi);
            return *out != SIM_NO_OPND;
        }
        if (frame) {
            sim_insn *h = emit(d);
            if (!h) return false;
            h->h = H_MOV_FRAME_ADDR;
            h->imm = (int64_t)foff;
            h->bits = 64;
            h->d[0] = d->next_temp++;
            *out = h->d[0];
            return true;
        }
        /* `warpSize` compiles to WARP_SZ, a constant the PTX assembler provides */
        if (strcmp(o->u.symbol, "WARP_SZ") == 0 && o->offset == 0) {
            *out = add_const(d, SIM_LANES);
            return *out != SIM_NO_OPND;
        }
        return unsupported(d, "symbol operand that is not a variable");
    }
    default:
        return unsupported(d, "operand form");
    }
}

static bool dst_opnd(decoder *d, const ptx_operand *o, sim_opnd *out) {
    if (o->kind == PTX_OPND_SINK) {
        *out = d->next_temp++; /* written and never read */
        return true;
    }
    if (o->kind != PTX_OPND_REG || o->has_component || o->u.reg < 0 || o->u.reg >= d->fn->nregs)
        return unsupported(d, "destination operand form");
    *out = o->u.reg;
    return true;
}

/* Fills in->addr/imm/space from an address operand. */
static bool addr_opnd(decoder *d, sim_insn *in, const ptx_operand *o, int ptx_space_) {
    if (o->kind != PTX_OPND_ADDR) return unsupported(d, "expected an address operand");
    sim_space sp;
    switch (ptx_space_) {
    case PTX_SPACE_NONE: sp = SP_GENERIC; break;
    case PTX_SPACE_GLOBAL: sp = SP_GLOBAL; break;
    case PTX_SPACE_SHARED: sp = SP_SHARED; break;
    case PTX_SPACE_LOCAL: sp = SP_LOCAL; break;
    case PTX_SPACE_CONST: sp = SP_CONST; break;
    case PTX_SPACE_PARAM: sp = SP_KPARAM; break;
    default: return unsupported(d, "state space");
    }
    in->space = (uint8_t)sp;
    in->imm = o->offset;
    if (o->addr_base == PTX_ADDR_REG) {
        if (o->addr_reg < 0 || o->addr_reg >= d->fn->nregs) return unsupported(d, "bad register");
        in->addr = o->addr_reg;
        in->addr32 = type_bits(d->fn->regs[o->addr_reg].type) == 32;
        if (sp == SP_KPARAM && !d->fn->is_entry)
            return unsupported(d, "parameter access through a register inside a .func");
    } else if (o->addr_base == PTX_ADDR_SYMBOL) {
        uint64_t v, foff;
        bool frame;
        if (symbol_constant(d, o->addr_symbol, o->offset, &v, &frame, &foff)) {
            in->imm = (int64_t)v;
            /* a .shared/.global/.const variable: its own space; keep generic ops generic */
            const sim_global_var *gv = find_global(d, o->addr_symbol);
            const local_var *lv = find_local(d, o->addr_symbol);
            if (sp == SP_GENERIC) {
                int vs = gv ? gv->space : lv ? lv->space : PTX_SPACE_PARAM;
                uint64_t base = vs == PTX_SPACE_SHARED ? SIM_SHARED_BASE
                                : vs == PTX_SPACE_CONST ? SIM_CONST_BASE
                                : vs == PTX_SPACE_PARAM ? SIM_PARAM_BASE : 0;
                in->imm = (int64_t)(v + base);
            }
        } else if (frame) {
            if (sp != SP_LOCAL && sp != SP_KPARAM && sp != SP_GENERIC)
                return unsupported(d, "frame variable in this state space");
            in->space = SP_LOCAL;
            in->addr_is_frame = true;
            in->imm = (int64_t)foff;
        } else {
            return unsupported(d, "address of an unknown symbol");
        }
    } else {
        if (sp == SP_LOCAL) return unsupported(d, "absolute local address");
    }
    return true;
}

/* ---- per-instruction decoding ------------------------------------------------------------------ */

static void set_type(sim_insn *in, int t) {
    in->type = (uint8_t)t;
    in->bits = (uint8_t)type_bits(t);
    in->is_signed = ptx_type_is_signed((ptx_type)t);
    in->is_float = t == PTX_TYPE_F32 || t == PTX_TYPE_F64 || t == PTX_TYPE_F16 || t == PTX_TYPE_BF16;
}

static bool is_int_type(int t) {
    return t != PTX_TYPE_PRED && !ptx_type_is_float((ptx_type)t) && type_bits(t) >= 16 &&
           t != PTX_TYPE_B128;
}

static bool is_fp(int t) { return t == PTX_TYPE_F32 || t == PTX_TYPE_F64; }

/* Scalar half types: add/sub/mul/fma/neg/abs/min/max/setp and atomic add are executed through
 * f32 (see README for the rounding argument); other modifiers are refused. */
static bool is_half(int t) { return t == PTX_TYPE_F16 || t == PTX_TYPE_BF16; }

static bool half_ok(decoder *d, const ptx_insn *x) {
    if (x->rnd && x->rnd != PTX_RND_RN) return unsupported(d, "rounding mode on a half type");
    if (x->flags & (PTX_F_FTZ | PTX_F_RELU | PTX_F_NAN | PTX_F_XORSIGN))
        return unsupported(d, "modifier on a half type");
    return true;
}

/* Decodes operands 1..n as sources of the instruction's type (operand 0 is the destination). */
static bool simple_operands(decoder *d, sim_insn *in, const ptx_insn *x, int nsrc, int type) {
    if (x->noperands != nsrc + 1) return unsupported(d, "operand count");
    for (int i = 0; i < nsrc; i++)
        if (!src_opnd(d, &x->operands[i + 1], type, &in->a[i])) return false;
    in->nsrc = (uint8_t)nsrc;
    in->ndst = 1;
    return dst_opnd(d, &x->operands[0], &in->d[0]);
}

static bool decode_call(decoder *d, sim_insn *in, const ptx_insn *x);

static bool decode_insn(decoder *d, const ptx_insn *x) {
    d->cur = x;
    if (x->unknown) return unsupported(d, NULL);
    /* Sources are decoded first (they may emit helpers), so the instruction itself is built in
     * a local and appended last. */
    sim_insn tmp;
    memset(&tmp, 0, sizeof tmp);
    sim_insn *in = &tmp;
    in->guard = SIM_NO_OPND;
    in->addr = SIM_NO_OPND;
    in->bb = -1;
    in->target = -1;
    in->call = -1;
    for (int i = 0; i < 4; i++) in->d[i] = in->a[i] = SIM_NO_OPND;
    in->id = x->id;
    in->src = x;
    in->vec = x->vec ? x->vec : 1;
    in->rnd = x->rnd;
    in->cmp = x->cmp;
    in->subop = x->subop;
    in->boolop = x->boolop;
    in->redop = x->redop;
    in->sem = x->sem;
    in->scope = (uint8_t)ptx_insn_scope(x);
    in->flags = x->flags;
    in->uniform = (x->flags & PTX_F_UNI) != 0;
    if (x->guard_reg >= 0) {
        if (x->guard_reg >= d->fn->nregs) return unsupported(d, "bad guard register");
        in->guard = x->guard_reg;
        in->guard_neg = x->guard_negated;
    }
    set_type(in, x->type);
    int t = x->type;

    switch ((ptx_opcode)x->op) {
    case PTX_OP_MOV: {
        if (x->noperands != 2) return unsupported(d, "operand count");
        const ptx_operand *s = &x->operands[1], *dd = &x->operands[0];
        if (dd->kind == PTX_OPND_VEC || s->kind == PTX_OPND_VEC) {
            const ptx_operand *v = dd->kind == PTX_OPND_VEC ? dd : s;
            if (v->u.list.nelems < 2 || v->u.list.nelems > 4) return unsupported(d, "vector size");
            int eb = in->bits / (int)v->u.list.nelems;
            if (eb != 8 && eb != 16 && eb != 32) return unsupported(d, "vector element size");
            in->vec = (uint8_t)v->u.list.nelems;
            in->imm = eb;
            if (dd->kind == PTX_OPND_VEC) {
                in->h = H_MOV_VEC_UNPACK;
                if (!src_opnd(d, s, t, &in->a[0])) return false;
                for (uint32_t i = 0; i < v->u.list.nelems; i++)
                    if (!dst_opnd(d, &v->u.list.elems[i], &in->d[i])) return false;
            } else {
                in->h = H_MOV_VEC_PACK;
                for (uint32_t i = 0; i < v->u.list.nelems; i++)
                    if (!src_opnd(d, &v->u.list.elems[i], PTX_TYPE_B32, &in->a[i])) return false;
                if (!dst_opnd(d, dd, &in->d[0])) return false;
            }
            break;
        }
        in->h = H_MOV;
        if (!simple_operands(d, in, x, 1, t)) return false;
        break;
    }
    case PTX_OP_ADD:
    case PTX_OP_SUB:
        if (x->flags & PTX_F_CC) {
            if (type_bits(t) != 32 && type_bits(t) != 64) return unsupported(d, NULL);
            in->h = x->op == PTX_OP_ADD ? H_ADDC : H_SUBC;
            in->imm = 2; /* carry out only */
            if (!simple_operands(d, in, x, 2, t)) return false;
            break;
        }
        if (is_fp(t) || (is_half(t) && half_ok(d, x))) {
            in->h = x->op == PTX_OP_ADD ? H_FADD : H_FSUB;
        } else if (is_half(t)) {
            return false;
        } else if (is_int_type(t)) {
            if (x->flags & PTX_F_SAT) {
                if (t != PTX_TYPE_S32) return unsupported(d, NULL);
            }
            in->h = x->op == PTX_OP_ADD ? H_ADD : H_SUB;
        } else {
            return unsupported(d, "type");
        }
        if (!simple_operands(d, in, x, 2, t)) return false;
        break;
    case PTX_OP_ADDC:
    case PTX_OP_SUBC:
        if (type_bits(t) != 32 && type_bits(t) != 64) return unsupported(d, NULL);
        in->h = x->op == PTX_OP_ADDC ? H_ADDC : H_SUBC;
        in->imm = 1 | ((x->flags & PTX_F_CC) ? 2 : 0); /* carry in, carry out */
        if (!simple_operands(d, in, x, 2, t)) return false;
        break;
    case PTX_OP_MUL:
    case PTX_OP_MAD:
    case PTX_OP_MADC: {
        int nsrc = x->op == PTX_OP_MUL ? 2 : 3;
        if (is_fp(t) || (is_half(t) && x->op != PTX_OP_MADC && half_ok(d, x))) {
            if (x->op == PTX_OP_MADC) return unsupported(d, NULL);
            in->h = x->op == PTX_OP_MUL ? H_FMUL : H_FFMA;
        } else if (is_half(t) && x->op != PTX_OP_MADC) {
            return false;
        } else if (is_int_type(t)) {
            int sub = x->subop ? x->subop : PTX_SUBOP_LO;
            if (x->op == PTX_OP_MADC || (x->flags & PTX_F_CC)) {
                if (type_bits(t) != 32 && type_bits(t) != 64) return unsupported(d, NULL);
                if (sub == PTX_SUBOP_WIDE) return unsupported(d, NULL);
                in->h = H_MADC;
                in->imm = (x->op == PTX_OP_MADC ? 1 : 0) | ((x->flags & PTX_F_CC) ? 2 : 0);
            } else if (sub == PTX_SUBOP_LO) {
                in->h = x->op == PTX_OP_MUL ? H_MUL_LO : H_MAD_LO;
            } else if (sub == PTX_SUBOP_HI) {
                in->h = x->op == PTX_OP_MUL ? H_MUL_HI : H_MAD_HI;
                if ((x->flags & PTX_F_SAT)) return unsupported(d, "mad.hi.sat");
            } else if (sub == PTX_SUBOP_WIDE) {
                if (type_bits(t) == 64) return unsupported(d, "64-bit .wide");
                in->h = x->op == PTX_OP_MUL ? H_MUL_WIDE : H_MAD_WIDE;
            } else {
                return unsupported(d, NULL);
            }
            in->subop = (uint8_t)sub;
        } else {
            return unsupported(d, "type");
        }
        if (!simple_operands(d, in, x, nsrc, t)) return false;
        if (in->h == H_MAD_WIDE) {
            /* the addend is the wide type */
            const ptx_operand *c = &x->operands[3];
            if (c->kind != PTX_OPND_REG && c->kind != PTX_OPND_IMM_INT)
                return unsupported(d, "operand form");
        }
        break;
    }
    case PTX_OP_MUL24:
    case PTX_OP_MAD24:
        if (type_bits(t) != 32 || (x->subop && x->subop != PTX_SUBOP_LO)) return unsupported(d, NULL);
        in->h = x->op == PTX_OP_MUL24 ? H_MUL24 : H_MAD24;
        if (!simple_operands(d, in, x, x->op == PTX_OP_MUL24 ? 2 : 3, t)) return false;
        break;
    case PTX_OP_SAD:
        if (!is_int_type(t)) return unsupported(d, NULL);
        in->h = H_SAD;
        if (!simple_operands(d, in, x, 3, t)) return false;
        break;
    case PTX_OP_DIV:
    case PTX_OP_REM:
        if (is_fp(t) && x->op == PTX_OP_DIV) {
            in->h = H_FDIV;
            if (!x->rnd) in->rnd = PTX_RND_RN; /* .approx/.full: see README (more exact) */
        } else if (is_int_type(t)) {
            in->h = x->op == PTX_OP_DIV ? H_DIV : H_REM;
        } else {
            return unsupported(d, "type");
        }
        if (!simple_operands(d, in, x, 2, t)) return false;
        break;
    case PTX_OP_ABS:
    case PTX_OP_NEG:
        if (is_fp(t) || is_half(t)) in->h = x->op == PTX_OP_ABS ? H_FABS : H_FNEG;
        else if (is_int_type(t) && in->is_signed) in->h = x->op == PTX_OP_ABS ? H_ABS : H_NEG;
        else return unsupported(d, "type");
        if (!simple_operands(d, in, x, 1, t)) return false;
        break;
    case PTX_OP_MIN:
    case PTX_OP_MAX:
        if (x->noperands != 3) return unsupported(d, "operand count");
        if (is_fp(t) || is_half(t)) in->h = x->op == PTX_OP_MIN ? H_FMIN : H_FMAX;
        else if (is_int_type(t)) in->h = x->op == PTX_OP_MIN ? H_MIN : H_MAX;
        else return unsupported(d, "type");
        if (x->flags & PTX_F_RELU) return unsupported(d, NULL);
        if (!simple_operands(d, in, x, 2, t)) return false;
        break;
    case PTX_OP_POPC:
    case PTX_OP_CLZ:
    case PTX_OP_BREV:
        if (type_bits(t) != 32 && type_bits(t) != 64) return unsupported(d, NULL);
        in->h = x->op == PTX_OP_POPC ? H_POPC : x->op == PTX_OP_CLZ ? H_CLZ : H_BREV;
        if (!simple_operands(d, in, x, 1, t)) return false;
        break;
    case PTX_OP_BFIND:
        if (type_bits(t) != 32 && type_bits(t) != 64) return unsupported(d, NULL);
        in->h = H_BFIND;
        if (!simple_operands(d, in, x, 1, t)) return false;
        break;
    case PTX_OP_BFE:
        if (type_bits(t) != 32 && type_bits(t) != 64) return unsupported(d, NULL);
        in->h = H_BFE;
        if (!simple_operands(d, in, x, 3, t)) return false;
        break;
    case PTX_OP_BFI:
        if (type_bits(t) != 32 && type_bits(t) != 64) return unsupported(d, NULL);
        in->h = H_BFI;
        if (!simple_operands(d, in, x, 4, t)) return false;
        break;
    case PTX_OP_PRMT:
        if (t != PTX_TYPE_B32) return unsupported(d, NULL);
        in->h = H_PRMT;
        if (!simple_operands(d, in, x, 3, t)) return false;
        break;
    case PTX_OP_LOP3:
        if (t != PTX_TYPE_B32 || x->noperands != 5 || x->operands[4].kind != PTX_OPND_IMM_INT)
            return unsupported(d, NULL);
        in->h = H_LOP3;
        in->imm = (int64_t)(x->operands[4].u.imm & 0xff);
        if (x->noperands != 5) return unsupported(d, "operand count");
        for (int i = 0; i < 3; i++)
            if (!src_opnd(d, &x->operands[i + 1], t, &in->a[i])) return false;
        if (!dst_opnd(d, &x->operands[0], &in->d[0])) return false;
        break;
    case PTX_OP_SHF:
        if (t != PTX_TYPE_B32 || (x->subop != PTX_SUBOP_L && x->subop != PTX_SUBOP_R))
            return unsupported(d, NULL);
        in->h = H_SHF;
        if (!simple_operands(d, in, x, 3, t)) return false;
        break;
    case PTX_OP_AND:
    case PTX_OP_OR:
    case PTX_OP_XOR:
        if (t == PTX_TYPE_PRED)
            in->h = x->op == PTX_OP_AND ? H_PRED_AND : x->op == PTX_OP_OR ? H_PRED_OR : H_PRED_XOR;
        else if (type_bits(t) >= 16 && !is_fp(t))
            in->h = x->op == PTX_OP_AND ? H_AND : x->op == PTX_OP_OR ? H_OR : H_XOR;
        else
            return unsupported(d, "type");
        if (!simple_operands(d, in, x, 2, t)) return false;
        break;
    case PTX_OP_NOT:
    case PTX_OP_CNOT:
        if (t == PTX_TYPE_PRED && x->op == PTX_OP_NOT) in->h = H_PRED_NOT;
        else if (type_bits(t) >= 16 && !is_fp(t)) in->h = x->op == PTX_OP_NOT ? H_NOT : H_CNOT;
        else return unsupported(d, "type");
        if (!simple_operands(d, in, x, 1, t)) return false;
        break;
    case PTX_OP_SHL:
    case PTX_OP_SHR:
        if (type_bits(t) < 16 || is_fp(t)) return unsupported(d, "type");
        in->h = x->op == PTX_OP_SHL ? H_SHL : H_SHR;
        if (x->noperands != 3) return unsupported(d, "operand count");
        if (!src_opnd(d, &x->operands[1], t, &in->a[0])) return false;
        if (!src_opnd(d, &x->operands[2], PTX_TYPE_U32, &in->a[1])) return false;
        if (!dst_opnd(d, &x->operands[0], &in->d[0])) return false;
        break;
    case PTX_OP_FMA:
        if (is_half(t) && !half_ok(d, x)) return false;
        if (!is_fp(t) && !is_half(t)) return unsupported(d, "type");
        in->h = H_FFMA;
        if (!simple_operands(d, in, x, 3, t)) return false;
        break;
    case PTX_OP_RCP:
    case PTX_OP_SQRT:
    case PTX_OP_RSQRT:
    case PTX_OP_SIN:
    case PTX_OP_COS:
    case PTX_OP_LG2:
    case PTX_OP_EX2:
    case PTX_OP_TANH:
        if (!is_fp(t)) return unsupported(d, "type");
        if ((x->op == PTX_OP_SIN || x->op == PTX_OP_COS || x->op == PTX_OP_LG2 ||
             x->op == PTX_OP_EX2 || x->op == PTX_OP_TANH) && t != PTX_TYPE_F32)
            return unsupported(d, "type");
        in->h = x->op == PTX_OP_RCP     ? H_FRCP
                : x->op == PTX_OP_SQRT  ? H_FSQRT
                : x->op == PTX_OP_RSQRT ? H_FRSQRT
                : x->op == PTX_OP_SIN   ? H_FSIN
                : x->op == PTX_OP_COS   ? H_FCOS
                : x->op == PTX_OP_LG2   ? H_FLG2
                : x->op == PTX_OP_EX2   ? H_FEX2
                                        : H_FTANH;
        if (!x->rnd) in->rnd = PTX_RND_RN;
        if (!simple_operands(d, in, x, 1, t)) return false;
        break;
    case PTX_OP_COPYSIGN:
        if (!is_fp(t)) return unsupported(d, "type");
        in->h = H_FCOPYSIGN;
        if (!simple_operands(d, in, x, 2, t)) return false;
        break;
    case PTX_OP_TESTP:
        return unsupported(d, NULL);
    case PTX_OP_SETP: {
        int st = t; /* the comparison type */
        set_type(in, st);
        if (st == PTX_TYPE_PRED || (!is_fp(st) && !is_half(st) && !is_int_type(st)))
            return unsupported(d, "type");
        if (!x->cmp) return unsupported(d, "comparison");
        in->h = H_SETP;
        int di = 0;
        if (x->noperands < 3) return unsupported(d, "operand count");
        if (!dst_opnd(d, &x->operands[0], &in->d[0])) return false;
        in->ndst = 1;
        if (x->operands[0].pair_next) {
            if (!dst_opnd(d, &x->operands[1], &in->d[1])) return false;
            in->ndst = 2;
            di = 1;
        }
        int rest = x->noperands - 1 - di;
        if (rest != 2 && rest != 3) return unsupported(d, "operand count");
        if ((rest == 3) != (x->boolop != 0)) return unsupported(d, "boolean combiner");
        for (int i = 0; i < 2; i++)
            if (!src_opnd(d, &x->operands[1 + di + i], st, &in->a[i])) return false;
        if (rest == 3 && !src_opnd(d, &x->operands[3 + di], PTX_TYPE_PRED, &in->a[2])) return false;
        if (x->flags & PTX_F_FTZ) in->flags |= PTX_F_FTZ;
        break;
    }
    case PTX_OP_SELP:
        if (t == PTX_TYPE_PRED || type_bits(t) < 16) return unsupported(d, "type");
        in->h = H_SELP;
        if (x->noperands != 4) return unsupported(d, "operand count");
        if (!src_opnd(d, &x->operands[1], t, &in->a[0])) return false;
        if (!src_opnd(d, &x->operands[2], t, &in->a[1])) return false;
        if (!src_opnd(d, &x->operands[3], PTX_TYPE_PRED, &in->a[2])) return false;
        if (!dst_opnd(d, &x->operands[0], &in->d[0])) return false;
        break;
    case PTX_OP_CVT: {
        int dt = x->type, st = x->type2;
        bool ok = dt && st && type_bits(dt) >= 8 && type_bits(st) >= 8 && dt != PTX_TYPE_B128 &&
                  st != PTX_TYPE_B128 && dt != PTX_TYPE_F16X2 && st != PTX_TYPE_F16X2 &&
                  dt != PTX_TYPE_BF16X2 && st != PTX_TYPE_BF16X2 && dt != PTX_TYPE_TF32 &&
                  st != PTX_TYPE_TF32;
        if (!ok) return unsupported(d, "conversion types");
        if (x->flags & (PTX_F_RELU | PTX_F_NAN)) return unsupported(d, NULL);
        in->h = H_CVT;
        in->type = (uint8_t)dt;
        in->type2 = (uint8_t)st;
        in->bits = (uint8_t)type_bits(dt);
        if (!simple_operands(d, in, x, 1, st)) return false;
        break;
    }
    case PTX_OP_CVTA:
        if (x->space != PTX_SPACE_GLOBAL && x->space != PTX_SPACE_SHARED &&
            x->space != PTX_SPACE_LOCAL && x->space != PTX_SPACE_CONST &&
            x->space != PTX_SPACE_PARAM)
            return unsupported(d, "state space");
        if (type_bits(t) != 64 && type_bits(t) != 32) return unsupported(d, "type");
        in->h = (x->flags & PTX_F_TO) ? H_CVTA_FROM_GENERIC : H_CVTA_TO_GENERIC;
        in->space = x->space;
        if (!simple_operands(d, in, x, 1, t)) return false;
        break;
    case PTX_OP_ISSPACEP:
        in->h = H_ISSPACEP;
        in->space = x->space;
        if (!simple_operands(d, in, x, 1, PTX_TYPE_U64)) return false;
        break;
    case PTX_OP_LD:
    case PTX_OP_LDU:
    case PTX_OP_ST: {
        bool is_ld = x->op != PTX_OP_ST;
        if (type_bits(t) < 8 || t == PTX_TYPE_B128) return unsupported(d, "type");
        if (in->vec != 1 && in->vec != 2 && in->vec != 4) return unsupported(d, "vector width");
        if (x->noperands != 2) return unsupported(d, "operand count");
        if (x->space == PTX_SPACE_SHARED_CLUSTER) return unsupported(d, "cluster shared memory");
        in->h = is_ld ? H_LD : H_ST;
        const ptx_operand *a = &x->operands[is_ld ? 1 : 0], *v = &x->operands[is_ld ? 0 : 1];
        if (!addr_opnd(d, in, a, x->space)) return false;
        if (in->vec == 1) {
            if (is_ld) {
                if (!dst_opnd(d, v, &in->d[0])) return false;
            } else if (!src_opnd(d, v, t, &in->a[0])) {
                return false;
            }
        } else {
            if (v->kind != PTX_OPND_VEC || v->u.list.nelems != in->vec)
                return unsupported(d, "vector operand");
            for (int i = 0; i < in->vec; i++) {
                if (is_ld) {
                    if (!dst_opnd(d, &v->u.list.elems[i], &in->d[i])) return false;
                } else if (!src_opnd(d, &v->u.list.elems[i], t, &in->a[i])) {
                    return false;
                }
            }
        }
        if (!is_ld && (in->space == SP_CONST || in->space == SP_KPARAM))
            return unsupported(d, "store to a read-only space");
        break;
    }
    case PTX_OP_ATOM:
    case PTX_OP_RED: {
        bool is_atom = x->op == PTX_OP_ATOM;
        int op = x->subop;
        if (in->vec != 1) return unsupported(d, "vector atomics");
        if (is_half(t)) {
            if (op != PTX_SUBOP_ADD || (x->flags & PTX_F_FTZ)) return unsupported(d, NULL);
        } else if (type_bits(t) != 32 && type_bits(t) != 64) {
            return unsupported(d, "type");
        }
        if (t == PTX_TYPE_F64 && op != PTX_SUBOP_ADD) return unsupported(d, NULL);
        if (t == PTX_TYPE_F32 && op != PTX_SUBOP_ADD && op != PTX_SUBOP_EXCH &&
            op != PTX_SUBOP_MIN && op != PTX_SUBOP_MAX)
            return unsupported(d, NULL);
        if (x->space != PTX_SPACE_NONE && x->space != PTX_SPACE_GLOBAL &&
            x->space != PTX_SPACE_SHARED)
            return unsupported(d, "state space");
        int nsrc = op == PTX_SUBOP_CAS ? 2 : 1;
        int first = is_atom ? 1 : 0;
        if (x->noperands != first + 1 + nsrc) return unsupported(d, "operand count");
        if (!op) return unsupported(d, "missing operation");
        in->h = is_atom ? H_ATOM : H_RED;
        if (!addr_opnd(d, in, &x->operands[first], x->space)) return false;
        if (in->addr_is_frame) return unsupported(d, "atomic on local memory");
        for (int i = 0; i < nsrc; i++)
            if (!src_opnd(d, &x->operands[first + 1 + i], t, &in->a[i])) return false;
        if (is_atom && !dst_opnd(d, &x->operands[0], &in->d[0])) return false;
        break;
    }
    case PTX_OP_CP_ASYNC:
        if (x->subop == PTX_SUBOP_COMMIT_GROUP || x->subop == PTX_SUBOP_WAIT_GROUP ||
            x->subop == PTX_SUBOP_WAIT_ALL) {
            in->h = H_CP_ASYNC_WAIT; /* copies complete at issue, so waiting is immediate */
            break;
        }
        if (x->subop || x->noperands < 3 || x->noperands > 4 ||
            x->operands[2].kind != PTX_OPND_IMM_INT || x->space != PTX_SPACE_SHARED ||
            x->space2 != PTX_SPACE_GLOBAL)
            return unsupported(d, NULL);
        in->h = H_CP_ASYNC;
        {
            sim_insn srcaddr = *in;
            if (!addr_opnd(d, in, &x->operands[0], PTX_SPACE_SHARED)) return false;
            if (!addr_opnd(d, &srcaddr, &x->operands[1], PTX_SPACE_GLOBAL)) return false;
            in->a[0] = srcaddr.addr; /* source base register */
            in->target = (int32_t)srcaddr.imm; /* source offset */
            if (srcaddr.addr == SIM_NO_OPND) return unsupported(d, "operand form");
            in->vec = (uint8_t)x->operands[2].u.imm;
            if (in->vec != 4 && in->vec != 8 && in->vec != 16) return unsupported(d, "copy size");
            if (x->noperands == 4) {
                if (!src_opnd(d, &x->operands[3], PTX_TYPE_U32, &in->a[1])) return false;
            }
        }
        break;
    case PTX_OP_BAR:
    case PTX_OP_BARRIER: {
        int sub = x->subop;
        if (sub == PTX_SUBOP_WARP) {
            in->h = H_BAR_WARP;
            if (x->noperands != 1) return unsupported(d, "operand count");
            if (!src_opnd(d, &x->operands[0], PTX_TYPE_B32, &in->a[0])) return false;
            break;
        }
        if (sub == PTX_SUBOP_RED) {
            /* bar.red.popc.u32 d, a{, b}, {!}c   bar.red.and/or.pred p, a{, b}, {!}c */
            in->h = H_BAR_RED;
            if (x->noperands != 3 && x->noperands != 4) return unsupported(d, "operand count");
            if (!dst_opnd(d, &x->operands[0], &in->d[0])) return false;
            if (!src_opnd(d, &x->operands[1], PTX_TYPE_U32, &in->a[0])) return false;
            if (x->noperands == 4 && !src_opnd(d, &x->operands[2], PTX_TYPE_U32, &in->a[1]))
                return false;
            if (!src_opnd(d, &x->operands[x->noperands - 1], PTX_TYPE_PRED, &in->a[2]))
                return false;
            if (x->redop != PTX_SUBOP_POPC && x->redop != PTX_SUBOP_AND &&
                x->redop != PTX_SUBOP_OR)
                return unsupported(d, NULL);
            break;
        }
        if (sub && sub != PTX_SUBOP_ARRIVE) return unsupported(d, NULL);
        in->h = sub == PTX_SUBOP_ARRIVE ? H_BAR_ARRIVE : H_BAR;
        if (x->noperands < 1 || x->noperands > 2) return unsupported(d, "operand count");
        if (!src_opnd(d, &x->operands[0], PTX_TYPE_U32, &in->a[0])) return false;
        if (x->noperands == 2 && !src_opnd(d, &x->operands[1], PTX_TYPE_U32, &in->a[1]))
            return false;
        break;
    }
    case PTX_OP_MEMBAR:
    case PTX_OP_FENCE:
        in->h = H_FENCE;
        if (x->flags & PTX_F_PROXY) in->h = H_NOP; /* proxy fences order other proxies only */
        break;
    case PTX_OP_SHFL:
        if (!(x->flags & PTX_F_SYNC)) return unsupported(d, "shfl without .sync");
        if (type_bits(t) != 32) return unsupported(d, "type");
        in->h = H_SHFL;
        {
            int di = 0;
            if (!dst_opnd(d, &x->operands[0], &in->d[0])) return false;
            if (x->operands[0].pair_next) {
                if (!dst_opnd(d, &x->operands[1], &in->d[1])) return false;
                di = 1;
            }
            if (x->noperands - 1 - di != 4) return unsupported(d, "operand count");
            for (int i = 0; i < 4; i++)
                if (!src_opnd(d, &x->operands[1 + di + i], PTX_TYPE_B32, &in->a[i])) return false;
        }
        break;
    case PTX_OP_VOTE:
        if (!(x->flags & PTX_F_SYNC)) return unsupported(d, "vote without .sync");
        in->h = H_VOTE;
        if (x->noperands != 3) return unsupported(d, "operand count");
        if (!dst_opnd(d, &x->operands[0], &in->d[0])) return false;
        if (!src_opnd(d, &x->operands[1], PTX_TYPE_PRED, &in->a[0])) return false;
        if (!src_opnd(d, &x->operands[2], PTX_TYPE_B32, &in->a[1])) return false;
        break;
    case PTX_OP_MATCH:
        if (!(x->flags & PTX_F_SYNC) || type_bits(t) < 32) return unsupported(d, NULL);
        in->h = H_MATCH;
        {
            int di = 0;
            if (!dst_opnd(d, &x->operands[0], &in->d[0])) return false;
            if (x->operands[0].pair_next) {
                if (!dst_opnd(d, &x->operands[1], &in->d[1])) return false;
                di = 1;
            }
            if (x->noperands - 1 - di != 2) return unsupported(d, "operand count");
            if (!src_opnd(d, &x->operands[1 + di], t, &in->a[0])) return false;
            if (!src_opnd(d, &x->operands[2 + di], PTX_TYPE_B32, &in->a[1])) return false;
        }
        break;
    case PTX_OP_REDUX:
        if (!(x->flags & PTX_F_SYNC) || type_bits(t) != 32 || is_fp(t)) return unsupported(d, NULL);
        in->h = H_REDUX;
        if (!simple_operands(d, in, x, 2, t)) return false;
        break;
    case PTX_OP_ACTIVEMASK:
        in->h = H_ACTIVEMASK;
        if (x->noperands != 1 || !dst_opnd(d, &x->operands[0], &in->d[0])) return false;
        break;
    case PTX_OP_NANOSLEEP:
        in->h = H_NANOSLEEP;
        break;
    case PTX_OP_PREFETCH:
    case PTX_OP_PREFETCHU:
    case PTX_OP_PMEVENT:
        in->h = H_NOP;
        break;
    case PTX_OP_BRA: {
        if (x->noperands != 1 || x->operands[0].kind != PTX_OPND_SYMBOL)
            return unsupported(d, "branch target");
        in->h = H_BRA;
        if (!grow((void **)&d->refs, &d->refs_cap, d->nrefs + 1, sizeof(label_ref), d->err))
            return false;
        d->refs[d->nrefs++] = (label_ref){x->operands[0].u.symbol, d->p->ncode};
        break;
    }
    case PTX_OP_CALL:
        if (!decode_call(d, in, x)) return false;
        break;
    case PTX_OP_RET:
        in->h = H_RET;
        break;
    case PTX_OP_EXIT:
        in->h = H_EXIT;
        break;
    case PTX_OP_TRAP:
    case PTX_OP_BRKPT:
        in->h = H_TRAP;
        break;
    default:
        return unsupported(d, NULL);
    }
    sim_insn *out = emit(d);
    if (!out) return false;
    *out = tmp;
    return true;
}

/* call{.uni} (rets), func, (args): parameters are copied between the caller's and the
 * callee's frames (copy in at the call, copy out at the return). */
/* Extern functions the CUDA toolkit resolves itself: device printf, assert, and the atomic
 * entry points -G builds call (__iAtomicAdd, __ullAtomicCAS_block, ...). */
static void decode_builtin(sim_func *sf, const ptx_function *fn) {
    const char *n = fn->name;
    if (strcmp(n, "vprintf") == 0) {
        sf->builtin = H_VPRINTF;
        return;
    }
    if (strcmp(n, "__assertfail") == 0) {
        sf->builtin = H_ASSERTFAIL;
        return;
    }
    static const struct { const char *prefix; uint8_t type; } types[] = {
        {"__ullAtomic", PTX_TYPE_U64}, {"__illAtomic", PTX_TYPE_S64}, {"__llAtomic", PTX_TYPE_B64},
        {"__iAtomic", PTX_TYPE_S32},   {"__uAtomic", PTX_TYPE_U32},   {"__fAtomic", PTX_TYPE_F32},
        {"__dAtomic", PTX_TYPE_F64}};
    static const struct { const char *name; uint8_t op; } ops[] = {
        {"Add", PTX_SUBOP_ADD}, {"Exch", PTX_SUBOP_EXCH}, {"Min", PTX_SUBOP_MIN},
        {"Max", PTX_SUBOP_MAX}, {"Inc", PTX_SUBOP_INC},   {"Dec", PTX_SUBOP_DEC},
        {"CAS", PTX_SUBOP_CAS}, {"And", PTX_SUBOP_AND},   {"Or", PTX_SUBOP_OR},
        {"Xor", PTX_SUBOP_XOR}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        size_t pl = strlen(types[i].prefix);
        if (strncmp(n, types[i].prefix, pl) != 0) continue;
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
            size_t ol = strlen(ops[k].name);
            if (strncmp(n + pl, ops[k].name, ol) != 0) continue;
            const char *rest = n + pl + ol;
            uint8_t scope = PTX_SCOPE_GPU;
            if (strcmp(rest, "_block") == 0) scope = PTX_SCOPE_CTA;
            else if (strcmp(rest, "_system") == 0) scope = PTX_SCOPE_SYS;
            else if (*rest) return;
            int nargs = ops[k].op == PTX_SUBOP_CAS ? 3 : 2;
            if (fn->nparams != nargs || fn->nrets != 1) return;
            sf->builtin = H_ATOM;
            sf->atom_type = types[i].type;
            sf->atom_op = ops[k].op;
            sf->atom_scope = scope;
            return;
        }
    }
}

static bool decode_call(decoder *d, sim_insn *in, const ptx_insn *x) {
    /* call [(rets),] func|%reg [, (args)] [, prototype] */
    const ptx_operand *rets = NULL, *args = NULL, *fnop = NULL;
    for (int i = 0; i < x->noperands; i++) {
        const ptx_operand *o = &x->operands[i];
        if ((o->kind == PTX_OPND_SYMBOL || o->kind == PTX_OPND_REG) && !fnop) fnop = o;
        else if (o->kind == PTX_OPND_LIST && !fnop) rets = o;
        else if (o->kind == PTX_OPND_LIST && fnop && !args) args = o;
        else if (o->kind == PTX_OPND_SYMBOL && fnop && fnop->kind == PTX_OPND_REG) continue;
        else return unsupported(d, "call operand form");
    }
    if (!fnop) return unsupported(d, "call without a target");
    int32_t nargs = args ? (int32_t)args->u.list.nelems : 0;
    int32_t nrets = rets ? (int32_t)rets->u.list.nelems : 0;
    int32_t callee = -1;
    const ptx_function *cf = NULL;
    if (fnop->kind == PTX_OPND_REG) {
        /* indirect: the target function is checked at run time */
        if (!src_opnd(d, fnop, PTX_TYPE_U64, &in->a[0])) return false;
    } else {
        callee = ptx_module_find_function(d->m, fnop->u.symbol);
        if (callee < 0) return unsupported(d, "call of an unknown function");
        cf = &d->m->functions[callee];
        if (nargs != cf->nparams || nrets != cf->nrets) return unsupported(d, "argument count");
        if (!cf->has_body && !d->p->funcs[callee].builtin) {
            /* relocatable device code: the definition is in a file that was not linked in */
            char why[600];
            snprintf(why, sizeof why,
                     "call of the external function %.400s, which is declared but defined in "
                     "none of the code linked (give the file that defines it as another FILE; "
                     "a program's units need -rdc=true)",
                     cf->name);
            return unsupported(d, why);
        }
    }
    sim_program *p = d->p;
    if (!grow((void **)&p->calls, &p->calls_cap, p->ncalls + 1, sizeof(sim_call), d->err))
        return false;
    sim_call *c = &p->calls[p->ncalls];
    memset(c, 0, sizeof *c);
    c->callee = callee;
    c->nargs = nargs;
    c->nrets = nrets;
    c->args = calloc((size_t)nargs + 1, sizeof *c->args);
    c->rets = calloc((size_t)nrets + 1, sizeof *c->rets);
    if (!c->args || !c->rets) {
        free(c->args);
        free(c->rets);
        return gr_fail(d->err, GR_ERR_NOMEM, "out of memory decoding PTX");
    }
    p->ncalls++;
    for (int pass = 0; pass < 2; pass++) {
        const ptx_operand *list = pass ? rets : args;
        int32_t n = pass ? nrets : nargs;
        const ptx_var *formals = cf ? (pass ? cf->rets : cf->params) : NULL;
        sim_param_copy *out = pass ? c->rets : c->args;
        for (int32_t i = 0; i < n; i++) {
            const ptx_operand *e = &list->u.list.elems[i];
            if (e->kind != PTX_OPND_SYMBOL) return unsupported(d, "call argument form");
            const local_var *lv = find_local(d, e->u.symbol);
            if (!lv || lv->kind != LV_FRAME) return unsupported(d, "call argument form");
            uint64_t fsize = formals ? sim_var_size(&formals[i]) : lv->size;
            out[i].caller_off = (uint32_t)lv->off;
            out[i].size = (uint32_t)(fsize < lv->size ? fsize : lv->size);
        }
    }
    in->h = H_CALL;
    in->call = p->ncalls - 1;
    in->target = callee;
    return true;
}

/* ---- variables and frames ------------------------------------------------------------------- */

uint64_t sim_var_size(const ptx_var *v) { return ptx_var_size(v); }

uint64_t sim_var_align(const ptx_var *v) {
    uint64_t a = v->align ? v->align : (uint64_t)ptx_type_size((ptx_type)v->type) * (v->vec ? v->vec : 1);
    return a ? a : 1;
}

static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

static bool kernel_param_offset(const ptx_function *fn, const char *name, uint64_t *off) {
    uint64_t o = 0;
    for (int i = 0; i < fn->nparams; i++) {
        const ptx_var *v = &fn->params[i];
        o = align_up(o, sim_var_align(v));
        if (strcmp(v->name, name) == 0) {
            *off = o;
            return true;
        }
        o += sim_var_size(v);
    }
    return false;
}

static bool add_local(decoder *d, const char *name, local_kind kind, uint64_t off, uint64_t size,
                      uint8_t space) {
    if (!grow((void **)&d->locals, &d->locals_cap, d->nlocals + 1, sizeof(local_var), d->err))
        return false;
    d->locals[d->nlocals++] = (local_var){name, kind, off, size, space};
    return true;
}

static bool frame_var(decoder *d, const ptx_var *v, uint64_t *off) {
    uint64_t a = sim_var_align(v);
    if (a < 4) a = 4;
    /* one activation's .local and .param variables: 16 MiB, checked in 64 bits before the
     * 32-bit frame offsets take them */
    uint64_t at = align_up(d->frame_size, a), size = sim_var_size(v);
    if (size > SIM_MAX_FRAME_BYTES || at + size > SIM_MAX_FRAME_BYTES)
        return gr_fail(d->err, GR_ERR_UNSUPPORTED,
                       "local variable %s (PTX line %u) of function %s is too large: a function's "
                       "local and parameter variables may take %u bytes in the simulator",
                       v->name, v->ptx_line, d->fn->name, (unsigned)SIM_MAX_FRAME_BYTES);
    *off = at;
    d->frame_size = (uint32_t)(at + size);
    return add_local(d, v->name, LV_FRAME, *off, size, v->space);
}

/* Parses an initializer ("{1, 2, 3}", "0f3F800000", nested braces) into bytes. */
static bool parse_init(const ptx_var *v, uint8_t *dst, uint64_t size, gr_error *err) {
    int es = ptx_type_size((ptx_type)v->type);
    uint64_t pos = 0;
    const char *s = v->init;
    while (*s) {
        if (*s == '{' || *s == '}' || *s == ',' || *s == ' ' || *s == '\t' || *s == '\n' ||
            *s == '\r') {
            s++;
            continue;
        }
        uint64_t bits = 0;
        char *end = NULL;
        if ((s[0] == '0') && (s[1] == 'f' || s[1] == 'F') ) {
            uint32_t b = (uint32_t)strtoul(s + 2, &end, 16);
            if (es == 8) {
                float f;
                memcpy(&f, &b, 4);
                double x = f;
                memcpy(&bits, &x, 8);
            } else {
                bits = b;
            }
        } else if ((s[0] == '0') && (s[1] == 'd' || s[1] == 'D')) {
            bits = strtoull(s + 2, &end, 16);
            if (es == 4) {
                double x;
                memcpy(&x, &bits, 8);
                float f = (float)x;
                uint32_t b;
                memcpy(&b, &f, 4);
                bits = b;
            }
        } else if (ptx_type_is_float((ptx_type)v->type) &&
                   (strchr("0123456789-+.", *s) != NULL)) {
            double x = strtod(s, &end);
            if (es == 4) {
                float f = (float)x;
                uint32_t b;
                memcpy(&b, &f, 4);
                bits = b;
            } else {
                memcpy(&bits, &x, 8);
            }
        } else if (strchr("0123456789-+", *s)) {
            if (*s == '-') bits = (uint64_t)strtoll(s, &end, 0);
            else bits = strtoull(s, &end, 0);
            if (end && (*end == 'U' || *end == 'u')) end++;
        } else {
            return gr_fail(err, GR_ERR_UNSUPPORTED,
                           "unsupported initializer of variable %s (PTX line %u)", v->name,
                           v->ptx_line);
        }
        if (!end || end == s)
            return gr_fail(err, GR_ERR_UNSUPPORTED, "unsupported initializer of variable %s",
                           v->name);
        s = end;
        if (pos + (uint64_t)es > size)
            return gr_fail(err, GR_ERR_INPUT, "initializer of %s is longer than the variable",
                           v->name);
        memcpy(dst + pos, &bits, (size_t)es); /* little-endian host */
        pos += (uint64_t)es;
    }
    return true;
}

static bool layout_module_vars(sim_program *p, const ptx_module *m, sim_alloc_fn alloc,
                               void *actx, gr_error *err) {
    /* module vars plus body .shared variables (static shared memory is one layout per module) */
    int32_t total = m->nvars;
    for (int32_t f = 0; f < m->nfunctions; f++)
        for (int32_t i = 0; i < m->functions[f].nvars; i++)
            if (m->functions[f].vars[i].space == PTX_SPACE_SHARED) total++;
    p->vars = calloc((size_t)total + 1, sizeof *p->vars);
    if (!p->vars) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    /* Sizes below are 64-bit and bounded before they are narrowed: every variable is under
     * 2^48 bytes (the parser's bound), each shared variable at most PTX_MAX_SHARED_PER_BLOCK,
     * the static shared layout (at least the sum of its variables) at most
     * SIM_MAX_SHARED_LAYOUT, the constant segment at most SIM_MAX_CONST_BYTES. */
    uint64_t shared = 0, cst = 0, shared_bytes = 0;
    /* const segment size first */
    for (int32_t i = 0; i < m->nvars; i++) {
        const ptx_var *v = &m->vars[i];
        if (v->space != PTX_SPACE_CONST) continue;
        cst = align_up(cst, sim_var_align(v)) + sim_var_size(v);
        if (cst > SIM_MAX_CONST_BYTES)
            return gr_fail_at(err, GR_ERR_UNSUPPORTED, m->source_name ? m->source_name : "", 0, 0,
                              "constant variable %s (PTX line %u) brings the .const space to "
                              "%" PRIu64 " bytes: the simulator holds at most %llu bytes of "
                              "constant data (a GPU's constant bank holds 65536)",
                              v->name, v->ptx_line, cst, (unsigned long long)SIM_MAX_CONST_BYTES);
    }
    p->const_size = cst;
    p->const_seg = calloc((size_t)cst + 16, 1);
    if (!p->const_seg) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    cst = 0;
    for (int32_t f = -1; f < m->nfunctions; f++) {
        int32_t n = f < 0 ? m->nvars : m->functions[f].nvars;
        for (int32_t i = 0; i < n; i++) {
            const ptx_var *v = f < 0 ? &m->vars[i] : &m->functions[f].vars[i];
            if (f >= 0 && v->space != PTX_SPACE_SHARED) continue;
            sim_global_var *g = &p->vars[p->nvars];
            g->var = v;
            g->space = v->space;
            g->size = sim_var_size(v);
            if (v->space == PTX_SPACE_SHARED) {
                if (v->is_extern) {
                    p->uses_dynamic_shared = true;
                    g->addr = UINT64_MAX; /* resolved below, after all static shared */
                } else {
                    /* a guard gap after every variable, so that running off one array is
                     * an out-of-bounds access rather than a write into its neighbour */
                    /* one variable past what a block can have is refused by name; the sum
                     * over the module is the launch's to check (sim_backend.c) */
                    if (g->size > PTX_MAX_SHARED_PER_BLOCK)
                        return gr_fail_at(err, GR_ERR_INPUT, m->source_name ? m->source_name : "",
                                          0, 0,
                                          "shared variable %s (PTX line %u) is %" PRIu64 " bytes: "
                                          "a block has at most %d bytes of shared memory",
                                          v->name, v->ptx_line, g->size, PTX_MAX_SHARED_PER_BLOCK);
                    shared_bytes += g->size;
                    shared = align_up(shared, sim_var_align(v));
                    g->addr = shared;
                    shared += g->size + SIM_SHARED_GAP;
                    if (shared > SIM_MAX_SHARED_LAYOUT)
                        return gr_fail_at(err, GR_ERR_UNSUPPORTED,
                                          m->source_name ? m->source_name : "", 0, 0,
                                          "shared variable %s (PTX line %u): the alignments of the "
                                          "module's shared variables need more than %llu bytes",
                                          v->name, v->ptx_line,
                                          (unsigned long long)SIM_MAX_SHARED_LAYOUT);
                    p->static_shared_bytes = (uint32_t)shared_bytes;
                }
            } else if (v->space == PTX_SPACE_GLOBAL) {
                uint8_t *host;
                if (v->is_extern) continue; /* declared elsewhere: not supported if used */
                if (!alloc(actx, g->size ? g->size : 1, &g->addr, &host, err)) {
                    gr_error_wrap(err, "global variable %s (PTX line %u)", v->name, v->ptx_line);
                    return false;
                }
                if (v->init && !parse_init(v, host, g->size, err)) return false;
            } else if (v->space == PTX_SPACE_CONST) {
                cst = align_up(cst, sim_var_align(v));
                g->addr = cst;
                if (v->init && !parse_init(v, p->const_seg + cst, g->size, err)) return false;
                cst += g->size;
            } else {
                continue;
            }
            p->nvars++;
        }
    }
    shared = align_up(shared, 16);
    for (int32_t i = 0; i < p->nvars; i++)
        if (p->vars[i].addr == UINT64_MAX) p->vars[i].addr = shared;
    p->static_shared = (uint32_t)shared;
    return true;
}

/* ---- functions ------------------------------------------------------------------------------ */

static int cmp_named(const void *a, const void *b) {
    return strcmp(((const named_index *)a)->name, ((const named_index *)b)->name);
}

static bool decode_function(decoder *d, int32_t fi) {
    const ptx_function *fn = &d->m->functions[fi];
    sim_func *sf = &d->p->funcs[fi];
    sf->fn = fn;
    sf->entry = d->p->ncode;
    d->fi = fi;
    d->fn = fn;
    d->next_temp = fn->nregs;
    d->nlabels = d->nrefs = d->nlocals = 0;
    d->frame_size = 0;
    d->cur = NULL;
    if (!fn->has_body) {
        decode_builtin(sf, fn);
        sf->end = sf->entry;
        return true;
    }
    /* a kernel's parameters are copied into a 32-bit sized block at launch: bound them here */
    if (fn->is_entry) {
        uint64_t bytes = 0;
        for (int i = 0; i < fn->nparams; i++) {
            bytes = align_up(bytes, sim_var_align(&fn->params[i])) + sim_var_size(&fn->params[i]);
            if (bytes > PTX_MAX_KERNEL_PARAM_BYTES)
                return gr_fail(d->err, GR_ERR_INPUT,
                               "kernel %s: parameter %s (PTX line %u) brings its parameters to "
                               "more than %d bytes, the most a kernel can take",
                               fn->name, fn->params[i].name, fn->params[i].ptx_line,
                               PTX_MAX_KERNEL_PARAM_BYTES);
        }
    }
    /* formal parameters and return values of a .func live in its frame */
    if (!fn->is_entry) {
        sf->param_off = calloc((size_t)fn->nparams + 1, sizeof(uint32_t));
        sf->ret_off = calloc((size_t)fn->nrets + 1, sizeof(uint32_t));
        if (!sf->param_off || !sf->ret_off) return gr_fail(d->err, GR_ERR_NOMEM, "out of memory");
        for (int i = 0; i < fn->nparams; i++) {
            uint64_t off;
            if (!frame_var(d, &fn->params[i], &off)) return false;
            sf->param_off[i] = (uint32_t)off;
        }
        for (int i = 0; i < fn->nrets; i++) {
            uint64_t off;
            if (!frame_var(d, &fn->rets[i], &off)) return false;
            sf->ret_off[i] = (uint32_t)off;
        }
    }
    /* body .shared variables resolve to their module-wide shared offsets */
    for (int32_t i = 0; i < d->p->nvars; i++) {
        const sim_global_var *g = &d->p->vars[i];
        if (g->space != PTX_SPACE_SHARED) continue;
        bool mine = fn->nvars > 0 && g->var >= fn->vars && g->var < fn->vars + fn->nvars;
        if (mine && !add_local(d, g->var->name, LV_SHARED, g->addr, g->size, PTX_SPACE_SHARED))
            return false;
    }
    bool next_is_leader = true;
    for (int32_t s = 0; s < fn->nstmts; s++) {
        const ptx_stmt *st = &fn->stmts[s];
        switch (st->kind) {
        case PTX_STMT_LABEL:
            if (!grow((void **)&d->labels, &d->labels_cap, d->nlabels + 1, sizeof(named_index),
                      d->err))
                return false;
            d->labels[d->nlabels++] = (named_index){st->text, d->p->ncode};
            next_is_leader = true;
            break;
        case PTX_STMT_VAR_DECL: {
            const ptx_var *v = &fn->vars[st->decl];
            uint64_t off;
            if (v->space == PTX_SPACE_LOCAL || v->space == PTX_SPACE_PARAM) {
                if (!frame_var(d, v, &off)) return false;
            } else if (v->space != PTX_SPACE_SHARED) {
                return gr_fail(d->err, GR_ERR_UNSUPPORTED,
                               "unsupported variable %s in function %s (PTX line %u)", v->name,
                               fn->name, v->ptx_line);
            }
            break;
        }
        case PTX_STMT_INSN: {
            int32_t first = d->p->ncode;
            if (!decode_insn(d, st->insn)) return false;
            if (next_is_leader) {
                d->p->code[first].bb_leader = true;
                next_is_leader = false;
            }
            ptx_opcode op = (ptx_opcode)st->insn->op;
            if (op == PTX_OP_BRA || op == PTX_OP_CALL || op == PTX_OP_RET || op == PTX_OP_EXIT ||
                op == PTX_OP_BAR || op == PTX_OP_BARRIER)
                next_is_leader = true;
            break;
        }
        default:
            break;
        }
    }
    /* falling off the end of a body returns */
    d->cur = NULL;
    sim_insn *r = emit(d);
    if (!r) return false;
    r->h = fn->is_entry ? H_EXIT : H_RET;
    if (next_is_leader) r->bb_leader = true;
    r->id = d->p->code[d->p->ncode > 1 ? d->p->ncode - 2 : 0].id;
    sf->end = d->p->ncode;
    sf->nslots = d->next_temp;
    sf->frame_size = (uint32_t)align_up(d->frame_size, 16);
    /* resolve branch targets */
    if (d->nlabels > 1) qsort(d->labels, (size_t)d->nlabels, sizeof(named_index), cmp_named);
    for (int32_t i = 0; i < d->nrefs; i++) {
        named_index key = {d->refs[i].name, 0};
        named_index *hit = d->nlabels ? bsearch(&key, d->labels, (size_t)d->nlabels, sizeof key, cmp_named) : NULL;
        sim_insn *b = &d->p->code[d->refs[i].code_index];
        if (!hit) {
            d->cur = b->src;
            return unsupported(d, "branch to an unknown label");
        }
        b->target = hit->index;
        d->p->code[hit->index].bb_leader = true;
    }
    return true;
}

/* Decodes function `fi`; one that uses PTX the simulator cannot execute becomes a stub (one
 * trap) that remembers why, so the module's other kernels still run. */
static bool decode_or_stub(decoder *d, int32_t fi) {
    sim_program *p = d->p;
    int32_t ncode = p->ncode, ncalls = p->ncalls;
    if (decode_function(d, fi)) return true;
    if (d->err->status != GR_ERR_UNSUPPORTED) return false;
    sim_func *sf = &p->funcs[fi];
    sf->unsupported = strdup(d->err->message ? d->err->message : "unsupported PTX");
    if (!sf->unsupported) return gr_fail(d->err, GR_ERR_NOMEM, "out of memory");
    snprintf(sf->unsupported_file, sizeof sf->unsupported_file, "%s", d->err->file);
    sf->unsupported_line = d->err->line;
    gr_error_clear(d->err);
    for (int32_t i = ncalls; i < p->ncalls; i++) {
        free(p->calls[i].args);
        free(p->calls[i].rets);
    }
    p->ncalls = ncalls;
    p->ncode = ncode;
    sf->entry = ncode;
    d->cur = NULL;
    sim_insn *stub = emit(d);
    if (!stub) return false;
    stub->h = H_TRAP;
    const ptx_function *fn = &d->m->functions[fi];
    for (int32_t i = 0; i < fn->nstmts; i++)
        if (fn->stmts[i].kind == PTX_STMT_INSN) {
            stub->id = fn->stmts[i].insn->id;
            stub->src = fn->stmts[i].insn;
            break;
        }
    stub->bb_leader = true;
    sf->end = p->ncode;
    return true;
}

bool sim_program_kernel_runnable(const sim_program *p, int32_t entry, gr_error *err) {
    if (entry < 0 || entry >= p->nfuncs) return true;
    uint8_t *seen = calloc((size_t)p->nfuncs, 1);
    int32_t *stack = calloc((size_t)p->nfuncs + 1, sizeof *stack);
    if (!seen || !stack) {
        free(seen);
        free(stack);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    int32_t sp = 0;
    stack[sp++] = entry;
    seen[entry] = 1;
    bool ok = true;
    while (sp && ok) {
        int32_t f = stack[--sp];
        const sim_func *sf = &p->funcs[f];
        if (sf->unsupported) {
            const char *kname = p->funcs[entry].fn ? p->funcs[entry].fn->name : "?";
            const char *file = sf->unsupported_file[0] ? sf->unsupported_file : NULL;
            if (f == entry)
                ok = gr_fail_at(err, GR_ERR_UNSUPPORTED, file, sf->unsupported_line, 0,
                                "kernel %s cannot run on the simulator: %s", kname,
                                sf->unsupported);
            else
                ok = gr_fail_at(err, GR_ERR_UNSUPPORTED, file, sf->unsupported_line, 0,
                                "kernel %s cannot run on the simulator: it calls %s, which has %s",
                                kname, sf->fn ? sf->fn->name : "?", sf->unsupported);
            break;
        }
        for (int32_t i = sf->entry; i < sf->end; i++) {
            const sim_insn *in = &p->code[i];
            if (in->h != H_CALL) continue;
            int32_t callee = p->calls[in->call].callee;
            if (callee >= 0 && callee < p->nfuncs && !seen[callee]) {
                seen[callee] = 1;
                stack[sp++] = callee;
            }
        }
    }
    free(seen);
    free(stack);
    return ok;
}

bool sim_program_build(const ptx_module *m, sim_program *p, sim_alloc_fn alloc, void *alloc_ctx,
                       gr_error *err) {
    memset(p, 0, sizeof *p);
    p->module = m;
    if (m->address_size != 64)
        return gr_fail(err, GR_ERR_UNSUPPORTED, "the simulator supports .address_size 64 only");
    decoder d;
    memset(&d, 0, sizeof d);
    d.p = p;
    d.m = m;
    d.err = err;
    bool ok = layout_module_vars(p, m, alloc, alloc_ctx, err);
    p->nfuncs = m->nfunctions;
    p->funcs = calloc((size_t)m->nfunctions + 1, sizeof *p->funcs);
    if (ok && !p->funcs) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
    for (int32_t f = 0; ok && f < m->nfunctions; f++)
        if (!m->functions[f].has_body) decode_builtin(&p->funcs[f], &m->functions[f]);
    for (int32_t f = 0; ok && f < m->nfunctions; f++) ok = decode_or_stub(&d, f);
    /* user code: accesses inside header functions (e.g. -G builds' atomicAdd wrappers) are
     * reported at the user's call site */
    if (ok) {
        bool *user = calloc((size_t)m->nfunctions + 1, sizeof *user);
        if (!user) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
        else ptx_mark_user_functions(m, user);
        for (int32_t fi = 0; ok && fi < m->nfunctions; fi++) p->funcs[fi].user_code = user[fi];
        free(user);
    }
    /* accesses that need not reach the detector */
    if (ok) ok = sim_filter_mark(p, m, err);
    if (ok) ok = sim_provenance_mark(p, m, err);
    /* basic blocks */
    if (ok) {
        for (int32_t i = 0; i < p->ncode; i++)
            if (p->code[i].bb_leader) p->code[i].bb = p->nblocks++;
        p->block_first_insn = calloc((size_t)p->nblocks + 1, sizeof(uint32_t));
        if (!p->block_first_insn) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
        for (int32_t i = 0; ok && i < p->ncode; i++)
            if (p->code[i].bb_leader) p->block_first_insn[p->code[i].bb] = p->code[i].id;
    }
    /* integer comparisons, whose operand distance the search follows */
    if (ok) {
        for (int32_t i = 0; i < p->ncode; i++)
            if (p->code[i].h == H_SETP && !p->code[i].is_float) p->code[i].cmp_slot = ++p->ncmps;
        p->cmp_insn = calloc((size_t)p->ncmps + 1, sizeof(uint32_t));
        if (!p->cmp_insn) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
        for (int32_t i = 0; ok && i < p->ncode; i++)
            if (p->code[i].cmp_slot) p->cmp_insn[p->code[i].cmp_slot - 1] = p->code[i].id;
    }
    free(d.labels);
    free(d.refs);
    free(d.locals);
    if (!ok) sim_program_free(p);
    return ok;
}

void sim_program_free(sim_program *p) {
    free(p->code);
    if (p->funcs)
        for (int32_t i = 0; i < p->nfuncs; i++) {
            free(p->funcs[i].param_off);
            free(p->funcs[i].ret_off);
            free(p->funcs[i].unsupported);
        }
    free(p->funcs);
    for (int32_t i = 0; i < p->ncalls; i++) {
        free(p->calls[i].args);
        free(p->calls[i].rets);
    }
    free(p->calls);
    free(p->consts);
    free(p->block_first_insn);
    free(p->cmp_insn);
    free(p->vars);
    free(p->const_seg);
    gr_access_filter_free(&p->filter);
    memset(p, 0, sizeof *p);
}
