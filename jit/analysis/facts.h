/* facts.h — what a kernel's PTX says about the launches and inputs it expects, for spec
 * inference, and where a barrier may go, for repair. One call reads every kernel of a module:
 *
 *   - special registers read, with their dimensions (%tid.x/y/z, %ntid.*, %ctaid.*, %nctaid.*,
 *     and the others), by the kernel and everything it calls;
 *   - static shared arrays (declared sizes) and, per access, the byte offset into the array as an
 *     affine form of thread coordinates (affine.h), "?" when the analysis cannot say;
 *   - guards the kernel checks itself, each a setp of two operands of a kind the search cares
 *     about:
 *       extent:       a block or grid extent against a constant (`if (blockDim.x != 256) return;`);
 *       index-bound:  an affine thread index against an integer kernel parameter (`if (i < n)`);
 *       loaded-value: a value loaded from a parameter's buffer against an immediate
 *                     (`if (data[i] == 42)`), the magic values an input generator should try;
 *     with, when one outcome makes the thread leave the kernel at once (an early return), the
 *     comparison under which it goes on;
 *   - per buffer parameter, the parameters its indices are computed from or bounded by.
 *
 * Forms are read flow-insensitively (affine.h) with block-uniform values as atoms (uniform.h).
 * Facts are observations, not proofs: nothing here skips a check. gr_barrier_points is the
 * exception that repair relies on (see there). */
#ifndef GR_JIT_ANALYSIS_FACTS_H
#define GR_JIT_ANALYSIS_FACTS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "jit/ptx/ptx_ir.h"

enum { GR_FACT_TEXT = 160 };

/* sreg_dims[s] for special register s (ptx_sreg): bit d set when component d (.x/.y/.z/.w) is
 * read, GR_FACT_SREG_WHOLE when it is read without one (%laneid, %clock64, ...). */
#define GR_FACT_SREG_WHOLE 0x80u

typedef struct gr_fact_access {
    uint32_t id;      /* the instruction */
    bool write;       /* a store or an atomic */
    uint32_t size;    /* bytes */
    bool known;       /* the offset below is exact */
    char offset[GR_FACT_TEXT]; /* byte offset from the array's start: "4*tid.x + 64*tid.y" */
    /* When the exact offset is a constant plus multiples of %tid.x/y/z and nothing else
     * (`tile[threadIdx.y][threadIdx.x]`), loop counters with non-negative multiples left out
     * (they are 0 on a loop's first trip): those numbers, which bound the block a launch may
     * use without running off the array. */
    bool thread_only;
    int64_t tid_coef[3];
    int64_t constant;
    /* When the offset is not exact (`known` false) but reads as those thread terms plus the
     * constant plus some multiple of `row_step` bytes the analysis cannot tell (`temp[pout][tid]`
     * with `pout` flipping between rows: 4*tid.x + 1024*?): row_step > 0 and thread_only set.
     * A bound, not a proof: only a caller that knows the array's rows can use it. */
    int64_t row_step;
} gr_fact_access;

typedef struct gr_fact_array {
    const char *name;   /* as declared (the module's memory) */
    uint64_t bytes;     /* declared size */
    uint32_t element;   /* bytes per element of the declared type */
    gr_fact_access *accesses; /* in instruction order */
    uint32_t naccesses;
} gr_fact_array;

typedef enum gr_fact_guard_kind {
    GR_FACT_GUARD_EXTENT = 1,
    GR_FACT_GUARD_INDEX_BOUND,
    GR_FACT_GUARD_LOADED_VALUE,
} gr_fact_guard_kind;

typedef struct gr_fact_guard {
    uint32_t id;        /* the setp */
    uint8_t kind;       /* gr_fact_guard_kind */
    /* The comparison with the fact's subject on the left ("ntid.x == 256", "index < n",
     * "value == 42"): ptx_cmp as the setp computes it, or, when `exits`, the comparison under
     * which the thread goes on. */
    uint8_t cmp;
    bool exits;         /* the other outcome leaves the kernel before any access */
    uint16_t sreg;      /* extent: PTX_SREG_NTID or PTX_SREG_NCTAID */
    uint8_t dim;        /* extent: 0..2 */
    int32_t param;      /* index-bound: the parameter; loaded-value: the buffer's parameter */
    uint32_t load_id;   /* loaded-value: the load */
    bool is_float;      /* loaded-value: the constant is a float */
    int64_t constant;   /* extent and integer loaded-value */
    double fconstant;   /* float loaded-value */
    char index[GR_FACT_TEXT]; /* index-bound: the thread index's form */
} gr_fact_guard;

typedef struct gr_fact_slot {
    int32_t param;   /* the kernel parameter */
    uint32_t offset; /* bytes into it (a struct's field) */
} gr_fact_slot;

typedef struct gr_kernel_facts {
    const char *name;
    int32_t function;   /* index into the module's functions */
    uint8_t sreg_dims[PTX_SREG_COUNT];
    gr_fact_array *arrays;
    uint32_t narrays;
    gr_fact_guard *guards;
    uint32_t nguards;
    /* The values the kernel reads from its parameter space (a parameter, or a field of a
     * struct passed by value at `offset`), at most 64. Per slot s whose pointer the kernel
     * accesses memory through (index_scalars[s], nslots entries; NULL when the kernel cannot
     * be read): bit t for each slot t read into those accesses' offsets or compared with a value
     * the offsets are computed from (`a[row * k + i]` under `row < m` and `i < k`: m and k).
     * Which of them are integer scalars is the caller's to say; indices loaded from memory are
     * not followed. index_squared: of those, the ones a value compared with them is multiplied
     * by (`row * n + col` under `row < n`): the offsets reach n * n. */
    gr_fact_slot *slots;
    uint32_t nslots;
    uint64_t *index_scalars;
    uint64_t *index_squared;
    /* and per slot: a parameter multiplied by a thread or block coordinate that no comparison
     * bounds (`a[threadIdx.y * lda + threadIdx.x]`): bit d for %tid.d, 3 + d for %ctaid.d; the
     * offsets reach lda * blockDim.y */
    uint8_t *index_launch;
} gr_kernel_facts;

typedef struct gr_facts {
    gr_kernel_facts *kernels; /* every kernel with a body, in module order */
    uint32_t nkernels;
} gr_facts;

/* Reads every kernel of `m`. Fails only for lack of memory. */
bool gr_facts_find(const ptx_module *m, gr_facts *out, gr_error *err);
void gr_facts_free(gr_facts *f);

/* "%tid.x" and the like for bit `dim` of sreg_dims[sreg] ("%laneid" for WHOLE). */
void gr_fact_sreg_name(uint16_t sreg, uint8_t dim_bit, char *buf, size_t n);
/* "==", "<", ... for a ptx_cmp. */
const char *gr_fact_cmp_text(uint8_t cmp);

/* Where a __syncthreads() could go between instructions `from_id` and `to_id` of one kernel so
 * that it separates them on every path: instruction ids X such that every path from `from_id`
 * to `to_id` (through loops as well) passes the point right before X (after any label before
 * X), and X is not in divergent code. Divergence is a fixed point over the kernel: a value
 * varies between the threads of a block when it reads %tid/%laneid/clocks, memory other than
 * parameters and constants, a collective's or a call's result, or another varying value, or is
 * defined in divergent code; code is divergent between a branch (or an early return) on a
 * varying predicate and the branch's join (its immediate post-dominator). Every thread of a
 * block that reaches such a point reaches it as often as the others, so a barrier there does
 * not diverge (given the kernel did not diverge before). In program order; none when the two
 * are in different functions, not in a kernel, or in a kernel the analysis cannot read.
 * `*ids` is malloc'ed (NULL when *n is 0). */
bool gr_barrier_points(const ptx_module *m, uint32_t from_id, uint32_t to_id, uint32_t **ids,
                       uint32_t *n, gr_error *err);

#endif
