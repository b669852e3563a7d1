/* sim_internal.h — the simulator's decoded program and run-time state (private to exec/sim).
 *
 * The PTX IR is decoded once (sim_decode.c) into one flat array of sim_insn covering every
 * function of the module: registers become slot numbers into a per-warp register file,
 * immediates become rows of a constant pool, labels become instruction indices, symbols become
 * addresses or frame offsets. The interpreter (sim_exec.c) then only indexes arrays. */
#ifndef GR_EXEC_SIM_INTERNAL_H
#define GR_EXEC_SIM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "exec/backend.h"
#include "exec/sim/sim.h"
#include "jit/analysis/filter.h"
#include "jit/ptx/ptx_ir.h"

enum { SIM_LANES = 32, SIM_BARRIERS = 16, SIM_MAX_CALL_DEPTH = 64 };

/* Handlers: what the dispatch loop switches on. Decode picks the variant per type. */
typedef enum sim_h {
    H_NOP = 0,
    /* integer, width/signedness in sim_insn.bits/is_signed */
    H_MOV, H_ADD, H_SUB, H_MUL_LO, H_MUL_HI, H_MUL_WIDE, H_MAD_LO, H_MAD_HI, H_MAD_WIDE,
    H_AND, H_OR, H_XOR, H_NOT, H_SHL, H_SHR, H_NEG, H_ABS, H_MIN, H_MAX, H_DIV, H_REM,
    H_POPC, H_CLZ, H_BFIND, H_BREV, H_BFE, H_BFI, H_PRMT, H_LOP3, H_SHF, H_CNOT,
    H_ADDC, H_SUBC, H_MADC, /* carry forms; .cc in flags */
    H_MUL24, H_MAD24, H_SAD,
    H_SETP, H_SELP, H_SET,
    H_PRED_AND, H_PRED_OR, H_PRED_XOR, H_PRED_NOT, /* and/or/xor/not on .pred */
    /* floating point; f32 vs f64 in `bits` */
    H_FADD, H_FSUB, H_FMUL, H_FFMA, H_FDIV, H_FNEG, H_FABS, H_FMIN, H_FMAX, H_FSQRT,
    H_FRCP, H_FRSQRT, H_FSIN, H_FCOS, H_FLG2, H_FEX2, H_FTANH, H_FCOPYSIGN, H_TESTP,
    H_CVT, H_CVTA_TO_GENERIC, H_CVTA_FROM_GENERIC, H_ISSPACEP,
    H_MOV_SREG, H_MOV_FRAME_ADDR, H_MOV_VEC_PACK, H_MOV_VEC_UNPACK,
    /* memory */
    H_LD, H_ST, H_ATOM, H_RED, H_CP_ASYNC, H_CP_ASYNC_WAIT,
    /* synchronization and collectives */
    H_BAR, H_BAR_ARRIVE, H_BAR_RED, H_BAR_WARP, H_FENCE, H_SHFL, H_VOTE, H_MATCH, H_REDUX,
    H_ACTIVEMASK, H_NANOSLEEP,
    /* control */
    H_BRA, H_CALL, H_RET, H_EXIT, H_TRAP, H_VPRINTF, H_ASSERTFAIL,
    H_COUNT
} sim_h;

/* Internal memory spaces of an address operand (finer than ptx_space). */
typedef enum sim_space {
    SP_GLOBAL = 0,
    SP_SHARED,
    SP_LOCAL,   /* per-thread stack: .local variables and .func parameters */
    SP_CONST,
    SP_KPARAM,  /* kernel parameters */
    SP_GENERIC,
} sim_space;

/* Generic address windows. Global allocations live at SIM_GLOBAL_BASE and above; the other
 * spaces map space-relative offsets into disjoint 4 GiB windows below it. */
#define SIM_WINDOW_SIZE 0x100000000ull
#define SIM_SHARED_BASE 0x10000000000ull
#define SIM_LOCAL_BASE 0x20000000000ull
#define SIM_CONST_BASE 0x30000000000ull
#define SIM_PARAM_BASE 0x40000000000ull
#define SIM_GLOBAL_BASE 0x100000000000ull
#define SIM_SHARED_GAP 64
/* What one module may declare, checked in 64 bits when it is decoded (before any 32-bit field
 * holds it): the .const space (a GPU's constant bank holds 64 KiB; more is refused by name rather
 * than truncated), the static shared layout with its gaps and alignment padding (every block
 * allocates it), and one function activation's .local and .param variables. */
#define SIM_MAX_CONST_BYTES (64ull << 20)
#define SIM_MAX_SHARED_LAYOUT (16ull << 20)
#define SIM_MAX_FRAME_BYTES (16ull << 20)
/* Function addresses (indirect calls): SIM_FUNC_BASE + 16 * function index; not memory. */
#define SIM_FUNC_BASE 0x500000000000ull

/* An operand: >= 0 a register slot of the current frame, < 0 row ~idx of the constant pool. */
typedef int32_t sim_opnd;
#define SIM_NO_OPND INT32_MIN

typedef struct sim_insn {
    uint16_t h;        /* sim_h */
    uint8_t bits;      /* operation width: 1 (pred), 8, 16, 32, 64 */
    uint8_t is_signed;
    uint8_t is_float;
    uint8_t type, type2; /* ptx_type (cvt: destination, source) */
    uint8_t space;     /* sim_space for memory ops; ptx_space for cvta/isspacep */
    uint8_t vec;
    uint8_t rnd, cmp, subop, boolop, sem, scope, redop;
    uint8_t ndst, nsrc;
    uint32_t flags;    /* PTX_F_* */
    sim_opnd guard;    /* predicate slot, or SIM_NO_OPND */
    bool guard_neg;
    bool bb_leader;    /* first instruction of a basic block */
    bool uniform;      /* bra.uni / call.uni: no divergence expected */
    bool addr_is_frame; /* address = lane's frame base + imm */
    bool addr32;       /* address register is 32 bits wide */
    int32_t bb;        /* basic block index when bb_leader */
    sim_opnd d[4];
    sim_opnd a[4];
    sim_opnd addr;     /* address base register, or SIM_NO_OPND */
    int64_t imm;       /* address offset; frame offset for H_MOV_FRAME_ADDR; sreg info */
    int32_t target;    /* branch target (instruction index), callee (function index) */
    int32_t call;      /* index into sim_program.calls for H_CALL */
    uint32_t id;       /* ptx_insn.id */
    int32_t cmp_slot;  /* integer setp: 1 + index into the launch result's cmp_closest; 0 none */
    int32_t base_param; /* a kernel's global access whose address derives from parameter p
                         * (jit/analysis/affine.h): 1 + p; 0 unknown */
    int32_t filter_site; /* 1 + index in sim_program.filter.sites: an access the analyses prove
                          * race-free under the site's conditions (sim_filter.h); 0: none */
    const ptx_insn *src;
} sim_insn;

/* One parameter of a call: the caller's frame variable (offset, bytes). The callee side is
 * the callee's formal parameter of the same position (sim_func.param_off / ret_off). */
typedef struct sim_param_copy {
    uint32_t caller_off, size;
} sim_param_copy;

typedef struct sim_call {
    int32_t callee;           /* function index; -1 for an indirect call (target in a[0]) */
    sim_param_copy *args, *rets;
    int32_t nargs, nrets;
} sim_call;

typedef struct sim_func {
    const ptx_function *fn;
    int32_t entry;            /* first instruction index */
    int32_t end;              /* one past the last */
    int32_t nslots;           /* register slots (declared registers + decoder temporaries) */
    uint32_t frame_size;      /* .local and .param variables of one activation */
    uint32_t *param_off;      /* formal parameters' frame offsets (.func) */
    uint32_t *ret_off;        /* return values' frame offsets */
    int32_t builtin;          /* H_VPRINTF / H_ASSERTFAIL / H_ATOM for known extern functions */
    bool user_code;           /* its lines are in the kernel's own source file (not a header) */
    uint8_t atom_type, atom_op, atom_scope; /* H_ATOM builtins (__iAtomicAdd_block, ...) */
    /* Why the function cannot be simulated (its first unsupported instruction), or NULL: its
     * code is then one trap, and no launch that can reach it directly runs (other kernels of
     * the module still do). */
    char *unsupported;
    char unsupported_file[512]; /* where that instruction is ("" unknown) */
    int unsupported_line;
} sim_func;

typedef struct sim_global_var {
    const ptx_var *var;
    uint64_t addr;     /* generic address (global) or space offset (shared/const) */
    uint64_t size;
    uint8_t space;     /* ptx_space */
} sim_global_var;

typedef struct sim_program {
    const ptx_module *module;
    sim_insn *code;
    int32_t ncode;
    sim_func *funcs;          /* parallel to module->functions */
    int32_t nfuncs;
    sim_call *calls;
    int32_t ncalls, calls_cap;
    uint64_t *consts;         /* rows of SIM_LANES copies */
    int32_t nconsts, consts_cap;
    int32_t nblocks;          /* basic blocks */
    uint32_t *block_first_insn;
    int32_t ncmps;            /* integer setp instructions (comparison feedback) */
    uint32_t *cmp_insn;       /* their instruction ids */
    sim_global_var *vars;     /* module-scope variables and body .shared variables */
    int32_t nvars;
    uint32_t static_shared;   /* layout size of static shared memory (variables + gaps); the
                                 dynamic part starts here */
    uint32_t static_shared_bytes; /* the variables' bytes alone (what a GPU would need) */
    bool uses_dynamic_shared;
    bool uses_reserved_smem;  /* reads %reserved_smem_offset_* (cooperative groups' scratch) */
    bool uses_grid_workspace; /* reads %envreg1/%envreg2: grid-wide sync (cooperative launch) */
    uint8_t *const_seg;       /* .const space contents */
    uint64_t const_size;
    gr_access_filter filter;  /* accesses that need not reach the detector (sim_filter.h) */
} sim_program;

/* Decodes every function of `m`. Global variables get addresses through `alloc_global`. */
typedef bool (*sim_alloc_fn)(void *ctx, uint64_t size, uint64_t *addr, uint8_t **host,
                             gr_error *err);
bool sim_program_build(const ptx_module *m, sim_program *p, sim_alloc_fn alloc, void *alloc_ctx,
                       gr_error *err);
void sim_program_free(sim_program *p);
/* Whether kernel `entry` (a function index) and every function it calls directly can run:
 * fails (GR_ERR_UNSUPPORTED) naming the kernel, the function and the instruction. */
bool sim_program_kernel_runnable(const sim_program *p, int32_t entry, gr_error *err);
/* Builds p->filter for `m` and marks the instructions of its sites (sim_insn.filter_site);
 * sim_filter.c, called at the end of sim_program_build. */
bool sim_filter_mark(sim_program *p, const ptx_module *m, gr_error *err);
/* Marks each kernel's global accesses with the parameter their address derives from
 * (sim_insn.base_param), so an access that leaves that parameter's buffer is out of bounds even
 * where it lands in another allocation. */
bool sim_provenance_mark(sim_program *p, const ptx_module *m, gr_error *err);
/* Bytes and alignment of a variable or parameter as PTX lays it out. */
uint64_t sim_var_size(const ptx_var *v);
uint64_t sim_var_align(const ptx_var *v);
/* "file:line" of an instruction (source line when .loc is present, else the PTX line). */
void sim_insn_location(const ptx_module *m, const ptx_insn *insn, char *buf, size_t n,
                       const char **file, int *line);

/* ---- float helpers with explicit rounding (sim_float.c, built with -frounding-math) ----- */
uint64_t sim_float_op(int op, int bits, int rnd, uint64_t a, uint64_t b, uint64_t c);
enum { SIM_FOP_ADD, SIM_FOP_SUB, SIM_FOP_MUL, SIM_FOP_FMA, SIM_FOP_DIV, SIM_FOP_SQRT,
       SIM_FOP_RCP };
/* cvt between any two scalar types with rounding/saturation/ftz per PTX. */
uint64_t sim_cvt(uint64_t v, int dtype, int stype, int rnd, bool sat, bool ftz);
uint16_t sim_f32_to_f16(float f, int rnd);
float sim_f16_to_f32(uint16_t h);
uint16_t sim_f32_to_bf16(float f, int rnd);
float sim_bf16_to_f32(uint16_t h);

#endif
