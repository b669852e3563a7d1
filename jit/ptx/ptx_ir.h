/* ptx_ir.h — the PTX IR: what jit/ptx's parser builds, its printer prints, jit/instrument
 * rewrites, and exec/sim decodes.
 *
 * Shape: a module holds directives, module-scope variables and functions (`.entry` kernels and
 * `.func` device functions). A function holds parameters, a register table, local variables and a
 * flat list of statements (instructions and labels, with `{`/`}` scope markers kept so that
 * register declarations in nested scopes print back where they were).
 *
 * An instruction keeps its qualifiers in source order (so printing is exact) *and* decoded into
 * fields (so later stages never re-parse strings). An instruction whose opcode or qualifiers the
 * IR does not know is kept verbatim with `unknown` set: printing reproduces it, and the simulator
 * and the instrumenter refuse it with its location instead of guessing.
 *
 * All memory of one module lives in its arena; ptx_module_free releases everything. */
#ifndef GR_JIT_PTX_IR_H
#define GR_JIT_PTX_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"

/* ---- opcode and qualifier tables (X-macros over the .def files) ---------------------------- */

enum {
    PTX_OPC_ARITH = 1u << 0,      /* register-to-register computation */
    PTX_OPC_MEMORY = 1u << 1,     /* touches memory through an address operand */
    PTX_OPC_READS = 1u << 2,
    PTX_OPC_WRITES = 1u << 3,
    PTX_OPC_ATOMIC = 1u << 4,
    PTX_OPC_SYNC = 1u << 5,       /* barriers, fences, warp synchronization */
    PTX_OPC_COLLECTIVE = 1u << 6, /* warp collectives: shfl, vote, match, redux */
    PTX_OPC_CONTROL = 1u << 7,    /* branches, calls, returns, exit, trap */
    PTX_OPC_OTHER = 1u << 8,
};

typedef enum ptx_opcode {
    PTX_OP_UNKNOWN = 0,
#define PTX_OPCODE(name, spelling, flags) PTX_OP_##name,
#include "jit/ptx/ptx_opcodes.def"
#undef PTX_OPCODE
    PTX_OP_COUNT
} ptx_opcode;

typedef enum ptx_space {
    PTX_SPACE_NONE = 0, /* generic addressing when on a memory instruction */
    PTX_SPACE_GLOBAL,
    PTX_SPACE_SHARED,
    PTX_SPACE_SHARED_CLUSTER,
    PTX_SPACE_LOCAL,
    PTX_SPACE_CONST,
    PTX_SPACE_PARAM,
    PTX_SPACE_REG, /* register declarations */
    PTX_SPACE_SREG,
    PTX_SPACE_TEX,
    PTX_SPACE_COUNT
} ptx_space;

typedef enum ptx_type {
    PTX_TYPE_NONE = 0,
    PTX_TYPE_PRED,
    PTX_TYPE_B8, PTX_TYPE_B16, PTX_TYPE_B32, PTX_TYPE_B64, PTX_TYPE_B128,
    PTX_TYPE_U8, PTX_TYPE_U16, PTX_TYPE_U32, PTX_TYPE_U64,
    PTX_TYPE_S8, PTX_TYPE_S16, PTX_TYPE_S32, PTX_TYPE_S64,
    PTX_TYPE_F16, PTX_TYPE_F16X2, PTX_TYPE_BF16, PTX_TYPE_BF16X2, PTX_TYPE_TF32,
    PTX_TYPE_F32, PTX_TYPE_F64,
    PTX_TYPE_COUNT
} ptx_type;

typedef enum ptx_scope {
    PTX_SCOPE_NONE = 0, /* not given: atomics default to gpu scope (see ptx_insn_scope) */
    PTX_SCOPE_CTA,
    PTX_SCOPE_CLUSTER,
    PTX_SCOPE_GPU,
    PTX_SCOPE_SYS,
} ptx_scope;

typedef enum ptx_sem {
    PTX_SEM_NONE = 0, /* not given: weak for ld/st, relaxed for atom/red, sc for fence */
    PTX_SEM_WEAK,
    PTX_SEM_VOLATILE,
    PTX_SEM_RELAXED,
    PTX_SEM_ACQUIRE,
    PTX_SEM_RELEASE,
    PTX_SEM_ACQ_REL,
    PTX_SEM_SC,
    PTX_SEM_MMIO,
} ptx_sem;

typedef enum ptx_cmp {
    PTX_CMP_NONE = 0,
    PTX_CMP_EQ, PTX_CMP_NE, PTX_CMP_LT, PTX_CMP_LE, PTX_CMP_GT, PTX_CMP_GE,
    PTX_CMP_LO, PTX_CMP_LS, PTX_CMP_HI, PTX_CMP_HS, /* unsigned spellings */
    PTX_CMP_EQU, PTX_CMP_NEU, PTX_CMP_LTU, PTX_CMP_LEU, PTX_CMP_GTU, PTX_CMP_GEU,
    PTX_CMP_NUM, PTX_CMP_NAN,
} ptx_cmp;

typedef enum ptx_rnd {
    PTX_RND_NONE = 0,
    PTX_RND_RN, PTX_RND_RZ, PTX_RND_RM, PTX_RND_RP, PTX_RND_RNA, PTX_RND_RS,
    PTX_RND_RNI, PTX_RND_RZI, PTX_RND_RMI, PTX_RND_RPI,
} ptx_rnd;

/* The operation an opcode-dependent qualifier selects: the atomic operation of atom/red,
 * the reduction of bar.red/redux, the mode of vote/shfl, the half of mul/mad (lo/hi/wide),
 * bar's arrive/red forms, prmt and shf modes, cp.async's group forms. Boolean combiners of
 * setp/set are in ptx_insn.boolop instead (also as AND/OR/XOR). */
typedef enum ptx_subop {
    PTX_SUBOP_NONE = 0,
    PTX_SUBOP_ADD, PTX_SUBOP_INC, PTX_SUBOP_DEC, PTX_SUBOP_MIN, PTX_SUBOP_MAX,
    PTX_SUBOP_AND, PTX_SUBOP_OR, PTX_SUBOP_XOR, PTX_SUBOP_EXCH, PTX_SUBOP_CAS,
    PTX_SUBOP_POPC, PTX_SUBOP_ANY, PTX_SUBOP_ALL, PTX_SUBOP_UNI, PTX_SUBOP_BALLOT,
    PTX_SUBOP_UP, PTX_SUBOP_DOWN, PTX_SUBOP_BFLY, PTX_SUBOP_IDX,
    PTX_SUBOP_LO, PTX_SUBOP_HI, PTX_SUBOP_WIDE,
    PTX_SUBOP_ARRIVE, PTX_SUBOP_RED,
    PTX_SUBOP_COMMIT_GROUP, PTX_SUBOP_WAIT_GROUP, PTX_SUBOP_WAIT_ALL,
    PTX_SUBOP_F4E, PTX_SUBOP_B4E, PTX_SUBOP_RC8, PTX_SUBOP_ECL, PTX_SUBOP_ECR, PTX_SUBOP_RC16,
    PTX_SUBOP_L, PTX_SUBOP_R,
    PTX_SUBOP_WARP, /* bar.warp.sync */
} ptx_subop;

/* Single-bit qualifiers. */
enum {
    PTX_F_UNI = 1u << 0,
    PTX_F_SYNC = 1u << 1,
    PTX_F_ALIGNED = 1u << 2,
    PTX_F_FTZ = 1u << 3,
    PTX_F_SAT = 1u << 4,
    PTX_F_APPROX = 1u << 5,
    PTX_F_FULL = 1u << 6,
    PTX_F_CC = 1u << 7,
    PTX_F_NC = 1u << 8,
    PTX_F_TO = 1u << 9,
    PTX_F_RELU = 1u << 10,
    PTX_F_NAN = 1u << 11,
    PTX_F_XORSIGN = 1u << 12,
    PTX_F_ABS = 1u << 13,
    PTX_F_WRAP = 1u << 14,
    PTX_F_CLAMP = 1u << 15,
    PTX_F_NOFTZ = 1u << 16,
    PTX_F_SHIFTAMT = 1u << 17,
    PTX_F_PROXY = 1u << 18,
};

typedef enum ptx_qual_kind {
    PTX_QK_SPACE, PTX_QK_TYPE, PTX_QK_SCOPE, PTX_QK_SEM, PTX_QK_CMP, PTX_QK_RND,
    PTX_QK_SUBOP, PTX_QK_FLAG, PTX_QK_CACHE, PTX_QK_VEC, PTX_QK_OTHER,
} ptx_qual_kind;

typedef enum ptx_qual {
    PTX_Q_NONE = 0,
#define PTX_QUAL(name, spelling, kind, value) PTX_Q_##name,
#include "jit/ptx/ptx_quals.def"
#undef PTX_QUAL
    PTX_Q_COUNT
} ptx_qual;

/* Special registers: %tid, %ntid, %ctaid, %nctaid (with .x/.y/.z), %laneid, %warpid, ... */
typedef enum ptx_sreg {
    PTX_SREG_NONE = 0,
    PTX_SREG_TID, PTX_SREG_NTID, PTX_SREG_CTAID, PTX_SREG_NCTAID,
    PTX_SREG_LANEID, PTX_SREG_WARPID, PTX_SREG_NWARPID, PTX_SREG_SMID, PTX_SREG_NSMID,
    PTX_SREG_GRIDID,
    PTX_SREG_LANEMASK_EQ, PTX_SREG_LANEMASK_LE, PTX_SREG_LANEMASK_LT,
    PTX_SREG_LANEMASK_GE, PTX_SREG_LANEMASK_GT,
    PTX_SREG_CLOCK, PTX_SREG_CLOCK_HI, PTX_SREG_CLOCK64, PTX_SREG_GLOBALTIMER,
    PTX_SREG_GLOBALTIMER_LO, PTX_SREG_GLOBALTIMER_HI,
    PTX_SREG_DYNAMIC_SMEM_SIZE, PTX_SREG_TOTAL_SMEM_SIZE,
    PTX_SREG_CLUSTERID, PTX_SREG_NCLUSTERID, PTX_SREG_CLUSTER_CTAID, PTX_SREG_CLUSTER_NCTAID,
    PTX_SREG_CLUSTER_CTARANK, PTX_SREG_CLUSTER_NCTARANK, PTX_SREG_IS_EXPLICIT_CLUSTER,
    PTX_SREG_ENVREG, /* %envreg0..31: `component` holds the number */
    PTX_SREG_PM,     /* %pm0..7 */
    PTX_SREG_RESERVED_SMEM_OFFSET_BEGIN, PTX_SREG_RESERVED_SMEM_OFFSET_END,
    PTX_SREG_RESERVED_SMEM_OFFSET_CAP, PTX_SREG_RESERVED_SMEM_OFFSET_0,
    PTX_SREG_RESERVED_SMEM_OFFSET_1, PTX_SREG_AGGR_SMEM_SIZE,
    PTX_SREG_COUNT
} ptx_sreg;

/* ---- operands -------------------------------------------------------------------------------- */

typedef enum ptx_operand_kind {
    PTX_OPND_NONE = 0,
    PTX_OPND_REG,     /* a declared register: `reg` indexes ptx_function.regs */
    PTX_OPND_SREG,    /* special register, `sreg` + `component` (0..2 for .x/.y/.z, else 0) */
    PTX_OPND_IMM_INT, /* integer immediate: `imm` holds the 64-bit pattern */
    PTX_OPND_IMM_F32, /* 0fXXXXXXXX or a decimal float in an f32 context: `f32_bits` */
    PTX_OPND_IMM_F64, /* 0dXXXXXXXXXXXXXXXX or decimal: `f64_bits` */
    PTX_OPND_SYMBOL,  /* a variable, function or label name, plus an optional `offset` */
    PTX_OPND_ADDR,    /* [base+offset]: base is a REG, SYMBOL, or none (absolute address) */
    PTX_OPND_VEC,     /* {a, b, c, d}: `elems`/`nelems` */
    PTX_OPND_LIST,    /* (a, b): call return/argument lists, `elems`/`nelems` */
    PTX_OPND_SINK,    /* _ */
    PTX_OPND_TEX,     /* [tex, {coords}] texture/surface operand: `elems`/`nelems` in `list` */
} ptx_operand_kind;

typedef struct ptx_operand ptx_operand;
struct ptx_operand {
    uint8_t kind;      /* ptx_operand_kind */
    bool negated;      /* `!%p` in a predicate source operand */
    bool pair_next;    /* this operand and the next one were written `a|b` (setp's two results) */
    uint8_t component; /* .x/.y/.z/.w as 0..3 for SREG and vector-element register forms */
    bool has_component;/* a register operand written with .x/.y/... (e.g. %tid.x or %r1.x) */
    union {
        int32_t reg;         /* PTX_OPND_REG, and ADDR's base when addr_base_is_reg */
        uint16_t sreg;       /* PTX_OPND_SREG */
        uint64_t imm;        /* PTX_OPND_IMM_INT */
        uint32_t f32_bits;   /* PTX_OPND_IMM_F32 */
        uint64_t f64_bits;   /* PTX_OPND_IMM_F64 */
        const char *symbol;  /* PTX_OPND_SYMBOL, and ADDR's base when a symbol */
        struct {
            ptx_operand *elems;
            uint32_t nelems;
        } list;              /* PTX_OPND_VEC, PTX_OPND_LIST */
    } u;
    /* ADDR only: which base (register, symbol, or none for an absolute [imm]). */
    enum { PTX_ADDR_NONE = 0, PTX_ADDR_REG, PTX_ADDR_SYMBOL } addr_base;
    int32_t addr_reg;        /* base register of ADDR when addr_base == PTX_ADDR_REG */
    const char *addr_symbol; /* base symbol of ADDR when addr_base == PTX_ADDR_SYMBOL */
    int64_t offset;          /* ADDR and SYMBOL: constant byte offset (+imm) */
};

/* ---- instructions and statements ------------------------------------------------------------ */

enum { PTX_MAX_QUALS = 16, PTX_MAX_OPERANDS = 8 };

typedef struct ptx_insn {
    uint32_t id;       /* static instruction id, unique within the module, stable across print/parse */
    uint16_t op;       /* ptx_opcode */
    uint8_t nquals;
    uint8_t quals[PTX_MAX_QUALS]; /* ptx_qual, in source order */

    /* decoded from quals (fields an opcode does not use stay NONE/0) */
    uint8_t space;     /* ptx_space: memory instructions; cvta/isspacep's space */
    uint8_t space2;    /* ptx_space: a second state space (cp.async's source), else NONE */
    uint8_t type;      /* ptx_type: first type qualifier (destination type for cvt) */
    uint8_t type2;     /* ptx_type: second type qualifier (source type of cvt, setp's... ) */
    uint8_t scope;     /* ptx_scope as written (see ptx_insn_scope for defaults) */
    uint8_t sem;       /* ptx_sem as written */
    uint8_t cmp;       /* ptx_cmp */
    uint8_t boolop;    /* setp/set combiner: PTX_SUBOP_AND/OR/XOR or NONE */
    uint8_t subop;     /* ptx_subop */
    uint8_t redop;     /* ptx_subop: bar.red's reduction (POPC/AND/OR) when subop == RED */
    uint8_t rnd;       /* ptx_rnd */
    uint8_t vec;       /* 1, 2, 4 or 8 */
    uint32_t flags;    /* PTX_F_* */

    /* guard predicate: @%p or @!%p; guard_reg < 0 when unguarded */
    int32_t guard_reg;
    bool guard_negated;

    uint8_t noperands;
    ptx_operand operands[PTX_MAX_OPERANDS];

    bool unknown;      /* opcode or a qualifier not in the tables: `text` holds it verbatim */
    const char *text;  /* verbatim source text of an unknown instruction (without ';') */

    uint32_t ptx_line; /* line in the PTX text this came from (0 for inserted instructions) */
    int32_t loc;       /* index into ptx_module.locs of the governing .loc, or -1 */
} ptx_insn;

typedef enum ptx_stmt_kind {
    PTX_STMT_INSN,
    PTX_STMT_LABEL,
    PTX_STMT_SCOPE_OPEN,  /* '{' inside a function body */
    PTX_STMT_SCOPE_CLOSE, /* '}' */
    PTX_STMT_REG_DECL,    /* a .reg declaration inside a nested scope: `decl` indexes regdecls */
    PTX_STMT_VAR_DECL,    /* a .local/.shared/.param variable declared in the body: `decl` indexes vars */
    PTX_STMT_LOC,         /* a .loc directive: `decl` indexes ptx_module.locs */
    PTX_STMT_PRAGMA,      /* .pragma "...": `text` */
    PTX_STMT_CALLPROTO,   /* a call prototype label: `text` holds the whole declaration verbatim */
    PTX_STMT_VERBATIM,    /* any other directive inside a body, kept as written: `text` */
} ptx_stmt_kind;

typedef struct ptx_stmt {
    uint8_t kind; /* ptx_stmt_kind */
    int32_t decl; /* REG_DECL, VAR_DECL, LOC */
    const char *text; /* LABEL name; PRAGMA/CALLPROTO/VERBATIM text */
    ptx_insn *insn;   /* INSN */
} ptx_stmt;

/* ---- declarations ----------------------------------------------------------------------------- */

/* One register. Ranged declarations `.reg .b32 %r<12>;` expand to %r0..%r11, each an entry;
 * `decl` groups them back for printing. */
typedef struct ptx_reg {
    const char *name; /* "%r5" */
    uint8_t type;     /* ptx_type */
    uint8_t vec;      /* .v2/.v4 register variables, else 1 */
    int32_t decl;     /* index into ptx_function.regdecls */
} ptx_reg;

typedef struct ptx_regdecl {
    uint8_t type;       /* ptx_type */
    uint8_t vec;
    const char *prefix; /* "%r" for a range, or the full name for a single register */
    int32_t count;      /* the N of %r<N>; -1 for a single named register */
    int32_t first_reg;  /* index of the first register in ptx_function.regs */
    int32_t nregs;
    bool nested;        /* declared inside a nested { } scope, or after the body's first
                         * statement: printed at its PTX_STMT_REG_DECL statement */
} ptx_regdecl;

/* A variable (module scope, function body, or a parameter). */
typedef struct ptx_var {
    const char *name;
    uint8_t space;      /* ptx_space */
    uint8_t type;       /* element ptx_type */
    uint8_t vec;        /* 1, 2, 4 */
    bool is_extern;     /* .extern (.extern .shared = dynamic shared memory) */
    bool is_visible;    /* .visible */
    bool is_weak;       /* .weak */
    bool is_ptr;        /* .ptr qualifier on a kernel parameter */
    bool is_managed;    /* .attribute(.managed): a __managed__ variable (host and device share it) */
    uint8_t ptr_space;  /* .ptr.global / .ptr.shared ... */
    uint32_t align;     /* 0 when not given */
    uint32_t ptr_align; /* .ptr ... .align N on parameters */
    int32_t ndims;      /* array dimensions, 0 for a scalar */
    int64_t dims[4];    /* -1 for an unsized `[]` dimension */
    const char *init;   /* initializer text after '=' (verbatim, without the '='), or NULL */
    uint32_t ptx_line;
} ptx_var;

typedef struct ptx_function {
    const char *name;
    bool is_entry;      /* .entry (kernel) vs .func */
    bool is_visible;
    bool is_extern;     /* declaration only (no body) */
    bool is_weak;
    bool has_body;
    bool noreturn;      /* .noreturn */

    ptx_var *params;    /* kernel/function parameters (space PARAM) */
    int32_t nparams;
    ptx_var *rets;      /* .func return values */
    int32_t nrets;

    /* entry attributes, 0 when absent */
    uint32_t maxntid[3], reqntid[3];
    uint32_t minnctapersm, maxnreg, maxnctapersm;
    const char *attrs_text; /* any other performance directives, verbatim, or NULL */

    ptx_reg *regs;
    int32_t nregs;
    ptx_regdecl *regdecls;
    int32_t nregdecls;

    ptx_var *vars;      /* variables declared in the body */
    int32_t nvars;

    ptx_stmt *stmts;
    int32_t nstmts;

    /* allocated capacities of the arrays above (the builder grows them in the arena) */
    int32_t regs_cap, regdecls_cap, vars_cap, stmts_cap;

    uint32_t ptx_line;
} ptx_function;

/* A .loc directive: file index, line, column, and the optional inlined-at part
 *   .loc 1 12 5, function_name $L__info_string0, inlined_at 1 30 7  */
typedef struct ptx_loc {
    int32_t file;        /* .file index */
    int32_t line;
    int32_t column;
    const char *function_name; /* label of the inlined function's name string, or NULL */
    int32_t inlined_file;      /* -1 when not inlined */
    int32_t inlined_line;
    int32_t inlined_column;
} ptx_loc;

typedef struct ptx_file_entry {
    int32_t index;
    const char *path;   /* as written in .file (may be relative to the compile directory) */
    const char *extra;  /* timestamp/size fields after the path, verbatim, or NULL */
} ptx_file_entry;

/* Module-level items in source order, so printing keeps declarations before uses. */
typedef enum ptx_item_kind {
    PTX_ITEM_VERSION, PTX_ITEM_TARGET, PTX_ITEM_ADDRESS_SIZE,
    PTX_ITEM_VAR, PTX_ITEM_FUNCTION, PTX_ITEM_FILE, PTX_ITEM_PRAGMA, PTX_ITEM_VERBATIM,
} ptx_item_kind;

typedef struct ptx_item {
    uint8_t kind;   /* ptx_item_kind */
    int32_t index;  /* into vars / functions / files */
    const char *text; /* PRAGMA and VERBATIM text */
} ptx_item;

typedef struct ptx_module {
    gr_arena arena;
    const char *source_name;   /* name used in error messages and the source map */

    int version_major, version_minor;  /* .version 8.5 */
    const char *target;                /* ".target sm_90" operands, verbatim ("sm_90, debug") */
    int address_size;                  /* 32 or 64 */

    ptx_var *vars;         /* module-scope .global/.const/.shared variables */
    int32_t nvars;
    ptx_function *functions;
    int32_t nfunctions;
    ptx_file_entry *files;
    int32_t nfiles;
    ptx_loc *locs;
    int32_t nlocs;
    ptx_item *items;
    int32_t nitems;

    uint32_t ninsns;       /* instruction ids run 0..ninsns-1 */

    /* id -> instruction and owning function index (ptx_module_insn); maintained by the parser
     * and by ptx_insn_new */
    ptx_insn **insn_index;
    int32_t *insn_function;
    uint32_t insn_index_cap;
} ptx_module;

/* ---- table look-ups (ptx_tables.c) ---------------------------------------------------------- */

const char *ptx_opcode_name(ptx_opcode op);
uint32_t ptx_opcode_class(ptx_opcode op);     /* PTX_OPC_* bits */
ptx_opcode ptx_opcode_lookup(const char *s, size_t n);
const char *ptx_qual_name(ptx_qual q);
ptx_qual_kind ptx_qual_kind_of(ptx_qual q);
uint32_t ptx_qual_value(ptx_qual q);
ptx_qual ptx_qual_lookup(const char *s, size_t n);
const char *ptx_type_name(ptx_type t);        /* "u32" */
const char *ptx_space_name(ptx_space s);      /* "global" */
const char *ptx_scope_name(ptx_scope s);      /* "cta" */
const char *ptx_sem_name(ptx_sem s);
const char *ptx_sreg_name(ptx_sreg s);        /* "%tid" */
ptx_sreg ptx_sreg_lookup(const char *s, size_t n);
int ptx_type_size(ptx_type t);                /* bytes; pred counts as 1 */
bool ptx_type_is_float(ptx_type t);
bool ptx_type_is_signed(ptx_type t);

/* ---- semantic helpers every later stage shares --------------------------------------------- */

/* Bytes an access instruction touches: type size × vector width (0 for non-accesses). */
int ptx_insn_access_size(const ptx_insn *insn);

/* Sizes. A variable's bytes are element size × vector width × every dimension, 0 when a
 * dimension is unsized (`[]`), saturating at UINT64_MAX; the parser refuses a declaration of more
 * than PTX_MAX_VAR_BYTES (more than any GPU addresses), so sizes, offsets and sums of a few of
 * them stay exact in 64 bits. The other limits hold on every GPU gpurace runs on: the shared
 * memory of one block (227 KiB with the opt-in, sm_80 and later) and the parameter bytes of one
 * kernel (CUDA 12.1 and later). */
#define PTX_MAX_VAR_BYTES (1ull << 48)
enum { PTX_MAX_SHARED_PER_BLOCK = 232448, PTX_MAX_KERNEL_PARAM_BYTES = 32764 };
uint64_t ptx_var_size(const ptx_var *v);
/* The scope an atomic/fence actually has (PTX defaults: gpu for atom/red, gpu for membar.gl…). */
ptx_scope ptx_insn_scope(const ptx_insn *insn);
/* The address operand of a memory instruction, or NULL. */
const ptx_operand *ptx_insn_address(const ptx_insn *insn);
bool ptx_insn_is_memory(const ptx_insn *insn);
bool ptx_insn_is_sync(const ptx_insn *insn);

/* The function named `name`: its definition when the module declares it first and defines it
 * later, else the declaration; -1 when there is none. */
int32_t ptx_module_find_function(const ptx_module *m, const char *name);
/* Whether `fn` or a function it calls reads %envreg1/%envreg2, the workspace of cooperative
 * groups' this_grid().sync(): such a kernel needs a cooperative launch, all blocks resident. */
bool ptx_function_syncs_grid(const ptx_module *m, const ptx_function *fn);
/* True when `fn` or a function it calls may order accesses of different blocks: atomics, fences,
 * strong (volatile, relaxed, acquire, release) loads and stores, grid sync, or an instruction
 * not in the tables. False means only barriers and warp syncs, which order within a block. */
bool ptx_function_may_order_blocks(const ptx_module *m, const ptx_function *fn);

void ptx_module_free(ptx_module *m);

/* Recomputes the decoded fields (space, type, scope, sem, cmp, boolop, subop, redop, rnd, vec,
 * flags) from insn->quals. Returns false when the qualifiers do not fit the fields (a third
 * type, two scopes, ...): the parser then keeps the instruction as unknown. */
bool ptx_insn_decode(ptx_insn *insn);

/* ---- building (jit/instrument) -------------------------------------------------------------
 * Everything is allocated in the module's arena. Inserted instructions get fresh ids
 * (m->ninsns++); printing and re-parsing renumbers them in module order. */

/* A new instruction of `fn` (unguarded, no qualifiers/operands, vec 1, loc -1, ptx_line 0) with
 * a fresh id, registered for ptx_module_insn. NULL when out of memory. */
ptx_insn *ptx_insn_new(ptx_module *m, const ptx_function *fn, ptx_opcode op);
/* Appends a qualifier and re-decodes. False when PTX_MAX_QUALS is reached or decoding fails. */
bool ptx_insn_add_qual(ptx_insn *insn, ptx_qual q);
/* Operand constructors (plain values; copy them into insn->operands). */
ptx_operand ptx_opnd_reg(int32_t reg);
ptx_operand ptx_opnd_imm(uint64_t value);
ptx_operand ptx_opnd_symbol(const char *name, int64_t offset);
ptx_operand ptx_opnd_addr_reg(int32_t reg, int64_t offset);
ptx_operand ptx_opnd_addr_symbol(const char *name, int64_t offset);
/* Appends an operand; false when PTX_MAX_OPERANDS is reached. */
bool ptx_insn_add_operand(ptx_insn *insn, ptx_operand op);
/* Declares one register `name` of `type` at function scope; returns its index in fn->regs,
 * or -1 when out of memory. `name` is copied. */
int32_t ptx_function_add_reg(ptx_module *m, ptx_function *fn, const char *name, ptx_type type);
/* Declares `%prefix<count>` (registers prefix0..prefix{count-1}) at function scope; returns
 * the index of prefix0 in fn->regs, or -1. */
int32_t ptx_function_add_reg_range(ptx_module *m, ptx_function *fn, const char *prefix,
                                   ptx_type type, int32_t count);
/* Inserts `n` statements before position `at` (0..fn->nstmts) of fn->stmts. */
bool ptx_function_insert_stmts(ptx_module *m, ptx_function *fn, int32_t at, const ptx_stmt *stmts,
                               int32_t n);
/* Convenience: inserts one instruction statement before `at`. */
bool ptx_function_insert_insn(ptx_module *m, ptx_function *fn, int32_t at, ptx_insn *insn);
/* The register index named `name` in `fn` (the latest declaration), or -1. Linear: for tools. */
int32_t ptx_function_find_reg(const ptx_function *fn, const char *name);

#endif
