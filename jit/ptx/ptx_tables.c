/* ptx_tables.c — name tables over ptx_opcodes.def / ptx_quals.def and the small enums. */
#include <string.h>

#include "jit/ptx/ptx_ir.h"

static const struct {
    const char *name;
    uint32_t flags;
} opcode_rows[PTX_OP_COUNT] = {
    [PTX_OP_UNKNOWN] = {"<unknown>", 0},
#define PTX_OPCODE(name, spelling, flags) [PTX_OP_##name] = {spelling, flags},
#include "jit/ptx/ptx_opcodes.def"
#undef PTX_OPCODE
};

static const struct {
    const char *name;
    uint8_t kind;
    uint32_t value;
} qual_rows[PTX_Q_COUNT] = {
    [PTX_Q_NONE] = {"", PTX_QK_OTHER, 0},
#define PTX_QUAL(name, spelling, kind, value) [PTX_Q_##name] = {spelling, kind, value},
#include "jit/ptx/ptx_quals.def"
#undef PTX_QUAL
};

static bool same(const char *name, const char *s, size_t n) {
    return strncmp(name, s, n) == 0 && name[n] == '\0';
}

const char *ptx_opcode_name(ptx_opcode op) {
    return (unsigned)op < PTX_OP_COUNT ? opcode_rows[op].name : "<bad opcode>";
}

uint32_t ptx_opcode_class(ptx_opcode op) {
    return (unsigned)op < PTX_OP_COUNT ? opcode_rows[op].flags : 0;
}

ptx_opcode ptx_opcode_lookup(const char *s, size_t n) {
    for (int i = 1; i < PTX_OP_COUNT; i++)
        if (same(opcode_rows[i].name, s, n)) return (ptx_opcode)i;
    return PTX_OP_UNKNOWN;
}

const char *ptx_qual_name(ptx_qual q) {
    return (unsigned)q < PTX_Q_COUNT ? qual_rows[q].name : "<bad qualifier>";
}

ptx_qual_kind ptx_qual_kind_of(ptx_qual q) {
    return (unsigned)q < PTX_Q_COUNT ? (ptx_qual_kind)qual_rows[q].kind : PTX_QK_OTHER;
}

uint32_t ptx_qual_value(ptx_qual q) { return (unsigned)q < PTX_Q_COUNT ? qual_rows[q].value : 0; }

ptx_qual ptx_qual_lookup(const char *s, size_t n) {
    /* The first row of a spelling wins ("shared::cta" is listed once; "lo"/"hi" once). */
    for (int i = 1; i < PTX_Q_COUNT; i++)
        if (same(qual_rows[i].name, s, n)) return (ptx_qual)i;
    return PTX_Q_NONE;
}

static const char *const type_names[PTX_TYPE_COUNT] = {
    [PTX_TYPE_NONE] = "", [PTX_TYPE_PRED] = "pred", [PTX_TYPE_B8] = "b8", [PTX_TYPE_B16] = "b16",
    [PTX_TYPE_B32] = "b32", [PTX_TYPE_B64] = "b64", [PTX_TYPE_B128] = "b128", [PTX_TYPE_U8] = "u8",
    [PTX_TYPE_U16] = "u16", [PTX_TYPE_U32] = "u32", [PTX_TYPE_U64] = "u64", [PTX_TYPE_S8] = "s8",
    [PTX_TYPE_S16] = "s16", [PTX_TYPE_S32] = "s32", [PTX_TYPE_S64] = "s64", [PTX_TYPE_F16] = "f16",
    [PTX_TYPE_F16X2] = "f16x2", [PTX_TYPE_BF16] = "bf16", [PTX_TYPE_BF16X2] = "bf16x2",
    [PTX_TYPE_TF32] = "tf32", [PTX_TYPE_F32] = "f32", [PTX_TYPE_F64] = "f64",
};

const char *ptx_type_name(ptx_type t) { return (unsigned)t < PTX_TYPE_COUNT ? type_names[t] : ""; }

static const char *const space_names[PTX_SPACE_COUNT] = {
    [PTX_SPACE_NONE] = "", [PTX_SPACE_GLOBAL] = "global", [PTX_SPACE_SHARED] = "shared",
    [PTX_SPACE_SHARED_CLUSTER] = "shared::cluster", [PTX_SPACE_LOCAL] = "local",
    [PTX_SPACE_CONST] = "const", [PTX_SPACE_PARAM] = "param", [PTX_SPACE_REG] = "reg",
    [PTX_SPACE_SREG] = "sreg", [PTX_SPACE_TEX] = "tex",
};

const char *ptx_space_name(ptx_space s) { return (unsigned)s < PTX_SPACE_COUNT ? space_names[s] : ""; }

const char *ptx_scope_name(ptx_scope s) {
    switch (s) {
    case PTX_SCOPE_CTA: return "cta";
    case PTX_SCOPE_CLUSTER: return "cluster";
    case PTX_SCOPE_GPU: return "gpu";
    case PTX_SCOPE_SYS: return "sys";
    default: return "";
    }
}

const char *ptx_sem_name(ptx_sem s) {
    switch (s) {
    case PTX_SEM_WEAK: return "weak";
    case PTX_SEM_VOLATILE: return "volatile";
    case PTX_SEM_RELAXED: return "relaxed";
    case PTX_SEM_ACQUIRE: return "acquire";
    case PTX_SEM_RELEASE: return "release";
    case PTX_SEM_ACQ_REL: return "acq_rel";
    case PTX_SEM_SC: return "sc";
    case PTX_SEM_MMIO: return "mmio";
    default: return "";
    }
}

static const char *const sreg_names[PTX_SREG_COUNT] = {
    [PTX_SREG_NONE] = "", [PTX_SREG_TID] = "%tid", [PTX_SREG_NTID] = "%ntid",
    [PTX_SREG_CTAID] = "%ctaid", [PTX_SREG_NCTAID] = "%nctaid", [PTX_SREG_LANEID] = "%laneid",
    [PTX_SREG_WARPID] = "%warpid", [PTX_SREG_NWARPID] = "%nwarpid", [PTX_SREG_SMID] = "%smid",
    [PTX_SREG_NSMID] = "%nsmid", [PTX_SREG_GRIDID] = "%gridid",
    [PTX_SREG_LANEMASK_EQ] = "%lanemask_eq", [PTX_SREG_LANEMASK_LE] = "%lanemask_le",
    [PTX_SREG_LANEMASK_LT] = "%lanemask_lt", [PTX_SREG_LANEMASK_GE] = "%lanemask_ge",
    [PTX_SREG_LANEMASK_GT] = "%lanemask_gt", [PTX_SREG_CLOCK] = "%clock",
    [PTX_SREG_CLOCK_HI] = "%clock_hi", [PTX_SREG_CLOCK64] = "%clock64",
    [PTX_SREG_GLOBALTIMER] = "%globaltimer", [PTX_SREG_GLOBALTIMER_LO] = "%globaltimer_lo",
    [PTX_SREG_GLOBALTIMER_HI] = "%globaltimer_hi",
    [PTX_SREG_DYNAMIC_SMEM_SIZE] = "%dynamic_smem_size",
    [PTX_SREG_TOTAL_SMEM_SIZE] = "%total_smem_size", [PTX_SREG_CLUSTERID] = "%clusterid",
    [PTX_SREG_NCLUSTERID] = "%nclusterid", [PTX_SREG_CLUSTER_CTAID] = "%cluster_ctaid",
    [PTX_SREG_CLUSTER_NCTAID] = "%cluster_nctaid",
    [PTX_SREG_CLUSTER_CTARANK] = "%cluster_ctarank",
    [PTX_SREG_CLUSTER_NCTARANK] = "%cluster_nctarank",
    [PTX_SREG_IS_EXPLICIT_CLUSTER] = "%is_explicit_cluster", [PTX_SREG_ENVREG] = "%envreg",
    [PTX_SREG_PM] = "%pm",
    [PTX_SREG_RESERVED_SMEM_OFFSET_BEGIN] = "%reserved_smem_offset_begin",
    [PTX_SREG_RESERVED_SMEM_OFFSET_END] = "%reserved_smem_offset_end",
    [PTX_SREG_RESERVED_SMEM_OFFSET_CAP] = "%reserved_smem_offset_cap",
    [PTX_SREG_RESERVED_SMEM_OFFSET_0] = "%reserved_smem_offset_0",
    [PTX_SREG_RESERVED_SMEM_OFFSET_1] = "%reserved_smem_offset_1",
    [PTX_SREG_AGGR_SMEM_SIZE] = "%aggr_smem_size",
};

const char *ptx_sreg_name(ptx_sreg s) { return (unsigned)s < PTX_SREG_COUNT ? sreg_names[s] : ""; }

/* Exact names only; %envregN and %pmN are recognized by the parser (number in `component`). */
ptx_sreg ptx_sreg_lookup(const char *s, size_t n) {
    for (int i = 1; i < PTX_SREG_COUNT; i++)
        if (i != PTX_SREG_ENVREG && i != PTX_SREG_PM && same(sreg_names[i], s, n)) return (ptx_sreg)i;
    return PTX_SREG_NONE;
}

int ptx_type_size(ptx_type t) {
    switch (t) {
    case PTX_TYPE_PRED: case PTX_TYPE_B8: case PTX_TYPE_U8: case PTX_TYPE_S8: return 1;
    case PTX_TYPE_B16: case PTX_TYPE_U16: case PTX_TYPE_S16: case PTX_TYPE_F16:
    case PTX_TYPE_BF16: return 2;
    case PTX_TYPE_B32: case PTX_TYPE_U32: case PTX_TYPE_S32: case PTX_TYPE_F32:
    case PTX_TYPE_F16X2: case PTX_TYPE_BF16X2: case PTX_TYPE_TF32: return 4;
    case PTX_TYPE_B64: case PTX_TYPE_U64: case PTX_TYPE_S64: case PTX_TYPE_F64: return 8;
    case PTX_TYPE_B128: return 16;
    default: return 0;
    }
}

bool ptx_type_is_float(ptx_type t) {
    return t == PTX_TYPE_F16 || t == PTX_TYPE_F16X2 || t == PTX_TYPE_BF16 || t == PTX_TYPE_BF16X2 ||
           t == PTX_TYPE_TF32 || t == PTX_TYPE_F32 || t == PTX_TYPE_F64;
}

bool ptx_type_is_signed(ptx_type t) {
    return t == PTX_TYPE_S8 || t == PTX_TYPE_S16 || t == PTX_TYPE_S32 || t == PTX_TYPE_S64;
}
