/* launch.h — the input of one kernel launch (gr_input): grid and block dimensions, dynamic
 * shared memory, the value of every parameter (scalars by value, pointers as buffers with typed
 * contents) and the schedule gene the simulator follows.
 *
 * This is what a genome decodes to (corpus/codec.h) and what a witness stores
 * (corpus/witness.h). A runner turns it into a backend launch (exec/backend.h's gr_launch):
 * allocate and fill each buffer, pass scalars' bits and buffers' device addresses as the
 * arguments. The schedule kinds are numbered as exec/backend.h's gr_schedule_kind, so a cast
 * converts them. Plain C data; gr_input_free() releases it. */
#ifndef GR_CORPUS_LAUNCH_H
#define GR_CORPUS_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Element types of buffers and scalars. f16 values are carried as their 16 bits. */
typedef enum gr_elem_type {
    GR_ELEM_I8, GR_ELEM_I16, GR_ELEM_I32, GR_ELEM_I64,
    GR_ELEM_U8, GR_ELEM_U16, GR_ELEM_U32, GR_ELEM_U64,
    GR_ELEM_F16, GR_ELEM_F32, GR_ELEM_F64,
    GR_ELEM_COUNT
} gr_elem_type;

int gr_elem_size(gr_elem_type t);            /* bytes */
const char *gr_elem_name(gr_elem_type t);    /* "i32" */
bool gr_elem_is_float(gr_elem_type t);        /* f16, f32, f64 */
bool gr_elem_is_signed(gr_elem_type t);       /* i8..i64 */
/* "i32", or a C spelling ("int", "unsigned int", "size_t", "float", "__half", "int32_t" ...).
 * Returns false for names it does not know. */
bool gr_elem_parse(const char *name, gr_elem_type *out);
/* Smallest and largest integer an integer type holds (u64's max is clamped to INT64_MAX). */
int64_t gr_elem_int_min(gr_elem_type t);
int64_t gr_elem_int_max(gr_elem_type t);

typedef enum gr_input_sched_kind {
    GR_INPUT_SCHED_ROUND_ROBIN, /* warps take turns, `quantum` warp-steps each */
    GR_INPUT_SCHED_RANDOM,      /* a random ready warp each step, from `seed` */
    GR_INPUT_SCHED_SERIALIZED,  /* one thread runs until it blocks: the sequential reference */
    GR_INPUT_SCHED_PCT,         /* random priorities with `depth` priority-change points */
    GR_INPUT_SCHED_REVERSE,     /* round-robin over warps in descending order */
    GR_INPUT_SCHED_KIND_COUNT
} gr_input_sched_kind;

const char *gr_input_sched_name(gr_input_sched_kind k); /* "round-robin", "random", "serialized", "pct", "reverse" */
bool gr_input_sched_parse(const char *name, gr_input_sched_kind *out);

typedef struct gr_input_schedule {
    gr_input_sched_kind kind;
    uint64_t seed;
    uint32_t quantum; /* 1..GR_INPUT_SCHED_MAX_QUANTUM */
    uint32_t depth;   /* 1..GR_INPUT_SCHED_MAX_DEPTH */
} gr_input_schedule;

#define GR_INPUT_SCHED_MAX_QUANTUM 1024u
#define GR_INPUT_SCHED_MAX_DEPTH 16u

typedef enum gr_input_arg_kind {
    GR_INPUT_SCALAR, /* `bits` holds the value (low `gr_elem_size(type)` bytes) */
    GR_INPUT_BUFFER, /* `buffer` indexes gr_input.buffers; the backend passes its device address */
    GR_INPUT_BYTES,  /* a struct passed by value: `bytes`/`nbytes` copied into the parameter space */
} gr_input_arg_kind;

/* A pointer field of a struct passed by value: the device address of buffer `buffer` is written
 * at byte `at` of the struct. */
typedef struct gr_input_ptr {
    uint32_t at;
    int buffer;
} gr_input_ptr;

typedef struct gr_input_arg {
    gr_input_arg_kind kind;
    char *name;        /* parameter name (may be NULL) */
    gr_elem_type type; /* scalars */
    uint64_t bits;     /* scalars: the value's bits, zero-extended (f32 as its 32 bits) */
    int buffer;        /* buffers: index into gr_input.buffers, else -1 */
    uint64_t offset;   /* buffers: where the pointer points, in bytes from the buffer's start.
                        * Pointer arguments into one allocation of a program share its buffer
                        * (each with its offset; `type` is then the argument's element type) */
    uint8_t *bytes;    /* aggregates */
    uint32_t nbytes;
    gr_input_ptr *ptrs; /* aggregates: pointer fields that point at buffers of the launch */
    int nptrs;
} gr_input_arg;

typedef struct gr_input_buffer {
    char *name;         /* parameter name ("s.data" for a struct's pointer field) */
    int param;          /* parameter index (a struct's, for its pointer fields) */
    gr_elem_type type;
    uint64_t count;     /* elements */
    uint64_t bytes;     /* count * element size */
    uint8_t *data;      /* initial contents, `bytes` long (NULL when bytes == 0) */
    bool output;        /* compared against the reference / between runs */
} gr_input_buffer;

typedef struct gr_input {
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t shared_bytes; /* dynamic shared memory */
    gr_input_schedule schedule;
    gr_input_arg *args;   /* one per kernel parameter, in order */
    int nargs;
    gr_input_buffer *buffers;
    int nbuffers;
} gr_input;

/* Total threads of the launch (grid x block), saturating at UINT64_MAX. */
uint64_t gr_input_threads(const gr_input *l);
/* Scalar conversions: the value as a signed integer / double, whatever the scalar's type. */
int64_t gr_scalar_as_i64(gr_elem_type t, uint64_t bits);
double gr_scalar_as_f64(gr_elem_type t, uint64_t bits);
/* Bits of `v` (or `d` for float types) stored in type `t`. */
uint64_t gr_scalar_from_i64(gr_elem_type t, int64_t v);
uint64_t gr_scalar_from_f64(gr_elem_type t, double d);
/* Element `i` of a buffer, as an integer (floats truncated) or as a double (f16 decoded). */
int64_t gr_input_buffer_i64(const gr_input_buffer *b, uint64_t i);
double gr_input_buffer_f64(const gr_input_buffer *b, uint64_t i);
/* IEEE half <-> float, round to nearest even. */
float gr_half_to_float(uint16_t h);
uint16_t gr_float_to_half(float f);

/* The bytes argument `i` puts in the kernel's parameter space: a scalar's value (element size),
 * a buffer's device address (8 bytes, `buffer_addr[buffer index]`, which the runner got from
 * the backend's allocation) or a struct's bytes with its pointer fields set to their buffers'
 * addresses. Returns the byte count, or 0 when `cap` is too
 * small or `i` is out of range. */
size_t gr_input_arg_bytes(const gr_input *in, int i, const uint64_t *buffer_addr, uint8_t *out,
                          size_t cap);

/* Whether pointer argument `i` points past its buffer's start or shares its buffer with an
 * earlier argument (it then reads the buffer as its own `type`); whether any argument does: what
 * witness version 2 can say and a spec (one buffer per pointer) cannot. */
bool gr_input_arg_aliased(const gr_input *in, int i);
bool gr_input_has_aliases(const gr_input *in);
/* What each pointer argument sees, one buffer per argument as a spec describes launches: the
 * bytes from where it points to the end of its buffer, as its own element type (a tail that is
 * not a whole element is dropped). Launch, scalars and schedule are copied. False when out of
 * memory. */
bool gr_input_views(const gr_input *in, gr_input *out);

/* Deep equality (argument names are not compared): dimensions, schedule, argument bits, buffer types, counts and bytes. */
bool gr_input_equal(const gr_input *a, const gr_input *b);
/* Deep copy; false when out of memory (`out` is then empty). */
bool gr_input_copy(gr_input *out, const gr_input *src);
void gr_input_free(gr_input *l);

#endif
