/* spec.h — what valid inputs of one kernel look like (docs/spec.md has the JSON format).
 *
 * A spec is bound to a kernel signature: it has one entry per kernel parameter, in order, so
 * the decoder and the witness code can index parameters directly. Parameters the JSON does not
 * mention, and kernels without a spec at all, get inferred entries (gr_spec_infer), and every
 * such guess is listed in `assumptions` so runs can say what they assumed.
 *
 * Errors name the JSON path ("params.idx.generator.max: ...") and have status GR_ERR_INPUT. */
#ifndef GR_CORPUS_SPEC_H
#define GR_CORPUS_SPEC_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "corpus/expr.h"
#include "corpus/launch.h"
#include "jit/signature/signature.h"

/* Defaults for the memory caps; a spec's "limits" object may lower or raise them. */
#define GR_SPEC_DEFAULT_MAX_TOTAL_BYTES (256ULL << 20)
#define GR_SPEC_HARD_MAX_TOTAL_BYTES (4ULL << 30)

/* An integer chosen by the genome: one value, a range, a list, or an expression of others.
 * `prefer` values (expressions) are picked half of the time when the kind is a range. */
typedef enum gr_domain_kind { GR_DOM_FIXED, GR_DOM_RANGE, GR_DOM_CHOICES } gr_domain_kind;

typedef struct gr_int_domain {
    gr_domain_kind kind;
    gr_expr *lo, *hi;     /* FIXED: lo is the value; RANGE: inclusive bounds */
    int64_t *choices;     /* CHOICES */
    int nchoices;
    gr_expr **prefer;     /* RANGE only; clamped into [lo, hi] */
    int nprefer;
} gr_int_domain;

typedef struct gr_float_domain {
    gr_domain_kind kind;
    double lo, hi;        /* FIXED: lo */
    double *choices;
    int nchoices;
} gr_float_domain;

typedef enum gr_gen_kind {
    GR_GEN_UNIFORM,     /* each element in [min, max] */
    GR_GEN_CHOICES,     /* each element one of a list */
    GR_GEN_ZEROS,
    GR_GEN_CONSTANT,    /* every element `value` */
    GR_GEN_IOTA,        /* start, start + step, ... */
    GR_GEN_PERMUTATION, /* a permutation of 0 .. count-1 */
    GR_GEN_SORTED,      /* ascending, each in [min, max] */
    GR_GEN_UNIQUE,      /* pairwise distinct, each in [min, max] */
    GR_GEN_INDEX_INTO,  /* each in [0, len(target)) or [0, length expression) */
    GR_GEN_CSR_GRAPH,   /* this buffer: row offsets; `neighbors`: column indices */
    GR_GEN_CSR_NEIGHBORS, /* filled by the csr_graph of `offsets_param` (never written in JSON) */
    GR_GEN_FILE,        /* values read from a file, repeated to the buffer's length */
    GR_GEN_KIND_COUNT
} gr_gen_kind;

const char *gr_gen_name(gr_gen_kind k);

typedef struct gr_generator {
    gr_gen_kind kind;
    /* Integer bounds (UNIFORM, SORTED, UNIQUE) may be expressions; float bounds are numbers. */
    gr_expr *min, *max;
    double fmin, fmax;
    int64_t *ichoices;
    double *fchoices;
    int nchoices;
    int64_t ivalue;      /* CONSTANT (integer types) */
    double fvalue;       /* CONSTANT (float types) */
    int64_t start, step; /* IOTA */
    int target_param;    /* INDEX_INTO a buffer: its parameter index, else -1 */
    gr_expr *target_len; /* INDEX_INTO a length */
    /* CSR_GRAPH */
    int neighbors_param;
    gr_int_domain nodes, edges; /* edges: requested; capped at the distinct edges possible */
    bool directed, self_loops, duplicates;
    int offsets_param;   /* CSR_NEIGHBORS */
    /* FILE: the values, already converted to the buffer's element type */
    uint8_t *file_data;
    uint64_t file_count;
    const char *file_path;
    bool file_raw;       /* binary little-endian elements, else text */
} gr_generator;

typedef enum gr_param_role { GR_ROLE_SCALAR, GR_ROLE_BUFFER, GR_ROLE_BYTES } gr_param_role;

typedef struct gr_param_spec {
    const char *name;
    gr_param_role role;
    gr_elem_type type;       /* scalar type or buffer element type */
    bool from_json;          /* false: inferred */
    /* scalars: integer domain, or float domain for float types */
    gr_int_domain idom;
    gr_float_domain fdom;
    /* buffers */
    gr_expr *length;         /* element count; NULL for CSR buffers (the graph decides) */
    gr_generator gen;
    bool output;
    bool has_tolerance;
    double tol_abs, tol_rel;
    int64_t tol_ulp;
    uint64_t max_count;      /* upper bound of the element count over all launches */
    /* by-value structs */
    uint32_t nbytes;
    /* a field of a struct passed by value (an entry past the kernel's parameters, named
     * "s.data"): the struct's parameter index, the field's index in its gr_kernel_param's
     * fields and its byte offset in the struct; parent -1 for a kernel parameter */
    int parent, field;
    uint32_t field_offset;
    const char *comment;     /* "comment" in the JSON (what a derived spec saw), or NULL */
} gr_param_spec;

typedef struct gr_spec {
    gr_arena arena;          /* everything below lives here */
    const char *kernel;      /* kernel name the spec names (or the signature's) */
    gr_int_domain grid[3], block[3], shared;
    gr_param_spec *params;   /* one per kernel parameter, then one per field of the structs
                              * passed by value whose layout is known (scalars and pointers) */
    int nparams;             /* the kernel's parameters */
    int nentries;            /* nparams + the fields */
    gr_expr **preconditions;
    const char **precondition_text;
    int npreconditions;
    const char *reference;   /* sequential reference function, or NULL */
    const char *comment;     /* the top-level "comment", or NULL */
    const char *launch_comment; /* launch.comment, or NULL */
    uint64_t max_total_bytes;
    /* Evaluation order of scalars and buffer lengths: entries are parameter (entry) indices, each
     * after everything it depends on. */
    int *order;
    int norder;
    const char **assumptions;
    int nassumptions;
    /* Parameter names and kinds, as expressions see them. */
    const char **names;
    gr_expr_name_kind *name_kinds;
} gr_spec;

/* Parses a JSON spec for `sig`. `file` names the spec in messages and anchors relative paths
 * of file generators. Parameters the spec leaves out are inferred (and listed as assumptions). */
bool gr_spec_parse(gr_spec *spec, const char *json_text, const char *file,
                   const gr_kernel_sig *sig, gr_error *err);
bool gr_spec_load(gr_spec *spec, const char *path, const gr_kernel_sig *sig, gr_error *err);
/* A spec from the signature alone: buffers of max(1024, 4 x threads) elements, integer scalars
 * in [0, threads] biased toward launch values, blocks 1..1024 biased to warp multiples,
 * grids 1..64. */
bool gr_spec_infer(gr_spec *spec, const gr_kernel_sig *sig, gr_error *err);

/* What the kernel's code says about the launches and inputs it expects (from the PTX analysis
 * facts, jit/analysis/facts.h), for an inferred spec that does not cry wolf. */
enum { GR_HINT_MAGIC_MAX = 16, GR_HINT_WHY = 160, GR_HINT_SLOTS = 64 };
typedef struct gr_spec_hints {
    bool known;              /* false: nothing is known (gr_spec_infer's plain guesses) */
    bool reads_block_index;  /* %ctaid or %nctaid: else one block is enough */
    uint8_t grid_dims;       /* highest %ctaid/%nctaid dimension read, 1..3 */
    uint8_t block_dims;      /* highest %tid/%ntid dimension read, 1..3 */
    /* Largest block extent per dimension that keeps the thread-indexed static shared arrays
     * in bounds (0: no bound), and the array that says so. */
    uint32_t block_max[3];
    char block_max_why[GR_HINT_WHY];
    /* `if (blockDim.d != C) return;` and the like: exact extents (0: none) and upper bounds. */
    uint32_t block_exact[3], block_upper[3];
    /* Integer constants the kernel compares values loaded from a buffer with (magic values):
     * the buffer's parameter index and the constant. */
    int magic_param[GR_HINT_MAGIC_MAX];
    int64_t magic[GR_HINT_MAGIC_MAX];
    int nmagic;
    /* What the indices of each buffer follow. Slots are values read from the parameter space:
     * a parameter, or a field of a struct passed by value at a byte offset. Per slot holding a
     * buffer's pointer: bit t for each slot t its indices are computed from or bounded by
     * (`a[row * k + i]` under `row < m`: m and k), and those that enter the product twice
     * (`row * n + col` under `row < n`). An inferred length follows the integer scalars among
     * them (their product), and they stay small enough for the product to fit the memory limit. */
    int32_t slot_param[GR_HINT_SLOTS];
    uint32_t slot_offset[GR_HINT_SLOTS];
    int nslots;
    uint64_t index_scalars[GR_HINT_SLOTS];
    uint64_t index_squared[GR_HINT_SLOTS];
    /* launch extents the product takes too (`threadIdx.y * lda`: blockDim.y): bit d for
     * blockDim.d, 3 + d for gridDim.d */
    uint8_t index_launch[GR_HINT_SLOTS];
} gr_spec_hints;

/* The hints for `sig`'s kernel in module `m`. Fails only for lack of memory; a kernel the
 * analysis cannot read gets hints with `known` false. */
bool gr_spec_hints_find(const ptx_module *m, const gr_kernel_sig *sig, gr_spec_hints *out,
                        gr_error *err);
/* gr_spec_infer, narrowed by the hints (NULL or !known: the same as gr_spec_infer). */
bool gr_spec_infer_hinted(gr_spec *spec, const gr_kernel_sig *sig, const gr_spec_hints *hints,
                          gr_error *err);
void gr_spec_free(gr_spec *spec);

/* What entry `i` of `spec` holds in `launch`, as an argument: a kernel parameter's argument
 * (copied, sharing its pointers), or for a struct's field a scalar read from the struct's bytes
 * or a buffer the struct points at (kind GR_INPUT_BUFFER with buffer -1 when it points at none). */
void gr_spec_entry_arg(const gr_spec *spec, const gr_input *launch, int i, gr_input_arg *out);

/* Prints the spec as JSON that gr_spec_parse accepts (what `gpurace info --spec` shows). */
bool gr_spec_to_json(const gr_spec *spec, gr_strbuf *out, gr_error *err);
/* The assumptions, one per line, each starting with "assumed: ". */
void gr_spec_print_assumptions(const gr_spec *spec, gr_strbuf *out);

/* Does `launch` satisfy `spec`? Dimensions, shared bytes and scalars within their domains,
 * buffer counts equal to their lengths, generator invariants (permutations, sorted, unique,
 * index ranges, CSR consistency), preconditions. The error says which field is off. */
bool gr_spec_check_launch(const gr_spec *spec, const gr_input *launch, gr_error *err);
/* Everything but buffer contents: launch, scalars, lengths, preconditions. An input that breaks
 * only contents (a repeated value in a permutation) keeps the spec's structure. */
bool gr_spec_check_structure(const gr_spec *spec, const gr_input *launch, gr_error *err);
/* Only the launch shape: grid, block and shared bytes within their domains (shared bytes and
 * domains that use other values are evaluated with the launch's own). What an amplified search
 * never leaves: a launch shape the kernel is not written for. */
bool gr_spec_check_shape(const gr_spec *spec, const gr_input *launch, gr_error *err);

#endif
