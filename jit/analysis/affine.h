/* affine.h — what a kernel's addresses are, as sums of thread coordinates, and when two threads'
 * accesses provably touch different bytes.
 *
 * A register's value is read as an affine form: a base (a kernel parameter's pointer, a shared
 * array, "no pointer" for integers, or unknown) plus a sum of integer coefficients times products
 * of atoms, plus a constant. Atoms are %tid, %ntid, %ctaid and %nctaid (.x/.y/.z) and one loop
 * counter per induction register: a register whose only definitions are `r = INIT` and
 * `r = r + STEP` (STEP fixed for the thread) holds INIT + m*STEP for some m >= 0. Anything else
 * (loaded values, divisions, data-dependent selects) leaves the offset unknown but keeps the
 * base: an integer loaded from memory only offsets a pointer, it is not one.
 *
 * Forms are read flow-insensitively from the definitions of each register, which is sound for a
 * register with one definition (PTX from NVRTC) and for the counters above; a counter sampled
 * twice in one expression would be two different values, so such an expression is unknown.
 * A caller that knows a register to be the same for every thread of a block within a barrier
 * epoch (uniform.h) can make it an atom of its own: a block-uniform atom, which the proof takes
 * as equal for the two threads it compares (they are of one block and one epoch) and which no
 * proof between blocks accepts.
 * Integer arithmetic is taken without wrap-around: an index that overflows 32 bits moves the
 * address by a multiple of 4 GiB, which is what the callers' run-time bounds checks catch.
 * Assumptions a caller must check at run time (both backends do, see intervals.h): an address
 * stays inside the array or parameter buffer its base names, and the launch's extents are
 * within the gr_affine_launch a proof returns. */
#ifndef GR_JIT_ANALYSIS_AFFINE_H
#define GR_JIT_ANALYSIS_AFFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jit/ptx/ptx_ir.h"

typedef enum gr_affine_base {
    GR_AFFINE_BASE_NONE = 0, /* an integer, not a pointer */
    GR_AFFINE_BASE_PARAM,    /* a kernel parameter's pointer (index = parameter) */
    GR_AFFINE_BASE_SHARED,   /* a .shared array's address in the shared window (index = array) */
    GR_AFFINE_BASE_SHARED_GENERIC, /* a generic address of shared memory (cvta.shared) */
    GR_AFFINE_BASE_OTHER,    /* a module variable outside shared memory */
    GR_AFFINE_BASE_UNKNOWN,  /* may point anywhere */
} gr_affine_base;

enum { GR_AFFINE_MAX_TERMS = 8, GR_AFFINE_MAX_DEGREE = 3 };

typedef struct gr_affine_term {
    int64_t coef;
    uint8_t degree;
    uint32_t atoms[GR_AFFINE_MAX_DEGREE]; /* sorted */
} gr_affine_term;

typedef struct gr_affine_form {
    uint8_t base;        /* gr_affine_base */
    int32_t base_index;
    bool known;          /* the offset below is exact */
    uint8_t nterms;
    gr_affine_term terms[GR_AFFINE_MAX_TERMS];
    int64_t constant;
} gr_affine_form;

/* The shared arrays of a kernel (its own and the module's), by index. */
typedef struct gr_affine_array {
    const char *name;
    uint64_t bytes; /* 0: size unknown (extern, dynamic) */
    const ptx_var *var;
} gr_affine_array;

typedef struct gr_affine_kernel gr_affine_kernel;

/* Reads the forms of `fn`'s registers (a kernel of `m`). NULL when out of memory or when the
 * kernel has an instruction the IR does not know (nothing can be said then). */
gr_affine_kernel *gr_affine_kernel_new(const ptx_module *m, const ptx_function *fn);
void gr_affine_kernel_free(gr_affine_kernel *k);

/* The address `x` (a memory instruction of the kernel) accesses: register base plus offset. */
gr_affine_form gr_affine_address(gr_affine_kernel *k, const ptx_insn *x);

const gr_affine_array *gr_affine_array_at(const gr_affine_kernel *k, int32_t index);

/* Makes each register r with uniform[r] set (an integer, not a pointer) a block-uniform atom;
 * forms read before are forgotten. */
bool gr_affine_set_uniform(gr_affine_kernel *k, const uint8_t *uniform);

/* The number of registers of the kernel (register indices are below it). */
int32_t gr_affine_register_count(const gr_affine_kernel *k);

/* Whether a form mentions a block-uniform atom. */
bool gr_affine_has_uniform(const gr_affine_form *f);

/* `l = i ^ J` (xor.b32, J one bit below the sign) and a comparison of l with i. */
typedef struct gr_affine_xor {
    int32_t index_reg;   /* i */
    int32_t flipped_reg; /* l */
    int64_t bit;         /* J */
} gr_affine_xor;

/* Whether predicate `pred` holding `value` says l > i for such a pair (its one definition a
 * `setp` of the two): then i has J's bit clear, and l = i + J. */
bool gr_affine_xor_guard(gr_affine_kernel *k, int32_t pred, bool value, gr_affine_xor *out);

/* The definitions of register r (*n of them). */
const ptx_insn *const *gr_affine_defs(const gr_affine_kernel *k, int32_t r, uint32_t *n);

/* Whether a form's atom is a loop counter (or an induction's placeholder). */
bool gr_affine_atom_is_counter(const gr_affine_kernel *k, uint32_t atom);

/* The form of register r (flow-insensitive, as the addresses use). */
gr_affine_form gr_affine_register(gr_affine_kernel *k, int32_t r);

/* Whether the address of `x` is `rest + coef * reg`, with `reg`'s value taken as it is and
 * `rest` a base plus a constant; every read of `reg` on the way counts as that same value
 * (the caller makes sure it is). */
bool gr_affine_address_over(gr_affine_kernel *k, const ptx_insn *x, int32_t reg, int64_t *coef,
                            gr_affine_form *rest);

/* rest + coef * (index + add). */
gr_affine_form gr_affine_scaled(gr_affine_kernel *k, const gr_affine_form *rest, int64_t coef,
                                const gr_affine_form *index, int64_t add);

/* Launch conditions under which a proof holds: each extent at most the given value (UINT32_MAX:
 * no condition; 1: the dimension must not be used). */
typedef struct gr_affine_launch {
    uint32_t max_ntid[3];
    uint32_t max_nctaid[3];
} gr_affine_launch;

void gr_affine_launch_any(gr_affine_launch *c);

/* What the branches an access sits behind say about the threads that make it. All zero: nothing. */
typedef struct gr_affine_bounds {
    int64_t tid_min[3];  /* %tid.x/y/z at least this (0: no bound) */
    bool capped[3];      /* %tid.d at most tid_cap[d], plus block-uniform atom cap_atom[d] if set */
    int64_t tid_cap[3];
    uint32_t cap_atom[3]; /* 0: none */
} gr_affine_bounds;

/* Narrows *b by what predicate register `pred` holding `value` says about the thread: its one
 * definition a `setp` of %tid.d against a constant (either bound) or against a block-uniform
 * value plus a constant (an upper bound). *uniform_setp is set to that setp when the bound read
 * a block-uniform value, which the caller must know to be of the access's epoch (else NULL).
 * False when it says nothing of that kind. */
bool gr_affine_guard_narrow(gr_affine_kernel *k, int32_t pred, bool value, gr_affine_bounds *b,
                            const ptx_insn **uniform_setp);

/* Whether accesses of `a_size` bytes at `a` and `b_size` bytes at `b`, made by two different
 * threads (of one block and one barrier epoch when `same_block`, else of the grid), can never
 * share a byte, both forms having the same base; `a_guard`/`b_guard` (may be NULL) bound the
 * threads making each.
 * True narrows `c` to the launches where that holds. */
bool gr_affine_disjoint(const gr_affine_form *a, uint32_t a_size, const gr_affine_bounds *a_guard,
                        const gr_affine_form *b, uint32_t b_size, const gr_affine_bounds *b_guard,
                        bool same_block, gr_affine_launch *c);

/* ---- naming (jit/analysis/facts.h) ----------------------------------------------------------- */

/* An atom's name: "tid.x", "ntid.y", "ctaid.z", "nctaid.x", "iter(%r5)" (a loop counter: how many
 * steps register %r5 has taken), "uniform(%r7)" (a block-uniform value). */
void gr_affine_atom_name(const gr_affine_kernel *k, uint32_t atom, char *buf, size_t n);
/* A form's offset as text, "4*tid.x + 64*tid.y + 8", or "?" when unknown (the base is not
 * printed). */
void gr_affine_format(const gr_affine_kernel *k, const gr_affine_form *f, char *buf, size_t n);
/* Whether a known form reads %tid or %ctaid (a thread index). */
bool gr_affine_mentions_thread(const gr_affine_form *f);
/* Whether a form is exactly one special register (1*%ntid.y, ...): which, and its dimension. */
bool gr_affine_single_sreg(const gr_affine_form *f, uint16_t *sreg, uint8_t *dim);

#endif
