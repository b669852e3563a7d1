/* witness.h — a launch that showed a finding, saved as a self-describing JSON file
 * (docs/witness.md has the schema): which kernel (name, source hash, compile options), which
 * backend, the complete input (dimensions, arguments, buffers with exact bytes, schedule), what
 * was found, and what the oracles said.
 *
 * Saving is atomic (temporary file + rename). Loading validates every field and names the JSON
 * path of the first problem (GR_ERR_INPUT); a witness for another kernel source is refused
 * unless forced. */
#ifndef GR_CORPUS_WITNESS_H
#define GR_CORPUS_WITNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "corpus/launch.h"
#include "jit/signature/signature.h"

#define GR_WITNESS_FORMAT "gpurace-witness"
/* Version 1: one buffer per pointer argument. Version 2 adds pointer arguments that share a
 * buffer or point past its start (`offset`, the argument's `type`); a witness is written as
 * version 1 whenever it needs nothing of version 2, and both versions load. */
#define GR_WITNESS_VERSION 2
#define GR_WITNESS_VERSION_MIN 1
/* kernel.linked_files: at most as many as the command line takes FILEs */
enum { GR_WITNESS_MAX_LINKED = 63 };

typedef struct gr_witness_access {
    char *file;       /* source file, or NULL */
    int line;         /* 0 when unknown */
    char *kind;       /* "read", "write", "atomic", or NULL */
    uint32_t instr;   /* PTX instruction id; UINT32_MAX when unknown */
    uint32_t block[3], thread[3];
} gr_witness_access;

typedef struct gr_witness_finding {
    char *cls;        /* race, barrier-divergence, out-of-bounds, hang, fault */
    char *kind;       /* e.g. "write-write" for races; may be NULL */
    char *space;      /* "global", "shared"; may be NULL */
    uint64_t signature;
    bool has_address;
    uint64_t address;
    char *message;    /* may be NULL */
    char *object;     /* the buffer or variable the address lies in, or NULL */
    int64_t element;  /* element index into `object`; -1 when unknown */
    uint32_t size;    /* bytes accessed; 0 when unknown */
    gr_witness_access accesses[2];
    int naccesses;    /* 0..2 */
} gr_witness_finding;

typedef struct gr_witness_verdict {
    char *oracle;     /* "seqcmp", "repeat" ... */
    char *verdict;    /* "differs", "same", ... */
    char *detail;     /* may be NULL */
} gr_witness_verdict;

/* Where a witness's input came from, so a finding on it says what it depends on (the optional
 * "input" object; all NULL when the witness does not say). */
typedef struct gr_witness_origin {
    char *kind;       /* "recorded", "spec", "outside-spec", "inferred-spec" */
    char *seed;       /* the recorded launch (seed file) the input was derived from, or NULL */
    char *spec;       /* the spec it was judged against ("derived from DIR", a file), or NULL */
    char *assumption; /* what the input needed beyond the spec, in words, or NULL */
} gr_witness_origin;

typedef struct gr_witness {
    char *tool_version;
    uint64_t source_hash; /* FNV-1a 64 of the kernel source (common/hash.h) */
    char *kernel;
    char *source_file;    /* the kernel file as the command that saved it named it, or NULL */
    /* A program of several files: the files linked with source_file, in order (source_hash
     * covers them all). */
    char **linked_files;
    int nlinked_files;
    char **compile_options;
    int ncompile_options;
    char *backend;        /* "sim", "gpu" */
    gr_input input;
    gr_witness_finding *findings;
    int nfindings;
    gr_witness_verdict *verdicts; /* optional */
    int nverdicts;
    gr_witness_origin origin;     /* optional */
} gr_witness;

bool gr_witness_to_json(const gr_witness *w, gr_strbuf *out, gr_error *err);
bool gr_witness_save(const gr_witness *w, const char *path, gr_error *err);

/* Parses and validates. With `expected_hash` non-NULL, a witness whose source hash differs is
 * refused unless `force`. `file` names the witness in messages. */
bool gr_witness_parse(gr_witness *w, const char *text, const char *file,
                      const uint64_t *expected_hash, bool force, gr_error *err);
bool gr_witness_load(gr_witness *w, const char *path, const uint64_t *expected_hash, bool force,
                     gr_error *err);
void gr_witness_free(gr_witness *w);

/* Does the input fit the kernel? One argument per parameter, buffers for pointers, scalars of
 * the parameter's size (and float-ness, where the C type is known), struct bytes of the
 * parameter's size. The error names the argument ("arguments[2] (n): ..."). */
bool gr_input_check_signature(const gr_input *in, const gr_kernel_sig *sig, gr_error *err);

/* Standard base64 (RFC 4648, with padding). Encoding returns a NUL-terminated heap string;
 * decoding returns false on a malformed string. Both return false when out of memory. */
char *gr_base64_encode(const uint8_t *data, size_t n);
bool gr_base64_decode(const char *text, size_t len, uint8_t **out, size_t *n);

#endif
