/* codec.h — genome bytes <-> launch, under a spec.
 *
 * Total: every byte string decodes to a launch that satisfies the spec (missing bytes read as
 * zero, extra bytes are ignored). Local: the genome is a fixed layout of fields (launch
 * dimensions, shared bytes, schedule, one slot per scalar, per buffer a seed plus one word per
 * leading element), so changing a few bytes changes one field. Bounded: the layout has a fixed
 * size for a spec (gr_codec_genome_size); elements past the first GR_CODEC_DIRECT_WORDS of a
 * buffer come from its seed.
 *
 * When a genome's launch breaks a precondition (or asks for something impossible, such as more
 * distinct values than a range holds), decoding retries with deterministic variants of the
 * genome and finally with the smallest launch; only when all of those fail does it report an
 * error, which then means the spec cannot be satisfied. */
#ifndef GR_CORPUS_CODEC_H
#define GR_CORPUS_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "corpus/launch.h"
#include "corpus/spec.h"

#define GR_CODEC_DIRECT_WORDS 256
#define GR_CODEC_RETRIES 8

typedef enum gr_codec_field_kind {
    GR_FIELD_GRID, GR_FIELD_BLOCK, GR_FIELD_SHARED,
    GR_FIELD_SCHED_KIND, GR_FIELD_SCHED_DEPTH, GR_FIELD_SCHED_QUANTUM, GR_FIELD_SCHED_SEED,
    GR_FIELD_SCALAR,      /* 8 bytes */
    GR_FIELD_BUFFER_SEED, /* 8 bytes: elements past the direct words */
    GR_FIELD_CSR_NODES,   /* 8 bytes */
    GR_FIELD_CSR_EDGES,   /* 8 bytes */
    GR_FIELD_WORDS,       /* 8 bytes per leading element (edge for csr_graph) */
    GR_FIELD_BYTES,       /* a struct's bytes */
} gr_codec_field_kind;

typedef struct gr_codec_field {
    gr_codec_field_kind kind;
    int param; /* parameter index, or the axis for GRID/BLOCK */
    size_t offset, size;
} gr_codec_field;

/* Where one parameter's fields lie in the genome (0 sizes for what it does not use). */
typedef struct gr_codec_slot {
    size_t scalar;          /* GR_FIELD_SCALAR */
    size_t seed;            /* GR_FIELD_BUFFER_SEED */
    size_t nodes, edges;    /* csr_graph */
    size_t words, nwords;   /* GR_FIELD_WORDS */
    size_t bytes, nbytes;   /* GR_FIELD_BYTES */
} gr_codec_slot;

typedef struct gr_codec {
    const gr_spec *spec;
    gr_codec_slot *slots;   /* by parameter index */
    gr_codec_field *fields;
    int nfields;
    size_t genome_size;
} gr_codec;

bool gr_codec_init(gr_codec *codec, const gr_spec *spec, gr_error *err);
void gr_codec_free(gr_codec *codec);
size_t gr_codec_genome_size(const gr_codec *codec);

/* Decodes `genome` into `out` (which the caller frees with gr_input_free). Fails only when
 * no launch satisfies the spec (GR_ERR_INPUT) or memory runs out. */
bool gr_codec_decode(const gr_codec *codec, const uint8_t *genome, size_t size, gr_input *out,
                     gr_error *err);

/* A genome that decodes to `launch`. `*genome` (malloc'ed, gr_codec_genome_size bytes) is
 * returned even when the launch cannot be represented exactly (buffer contents past the direct
 * words, values no generator produces, a failing precondition); `*exact` says whether
 * decoding it gives `launch` back. */
bool gr_codec_encode(const gr_codec *codec, const gr_input *launch, uint8_t **genome,
                     size_t *size, bool *exact, gr_error *err);

/* Structure-aware mutation for libFuzzer's custom mutator: picks a field and changes it the
 * way its generator cares about (a preferred launch value, a range bound, a duplicated index,
 * two swapped permutation keys, a repeated edge, another schedule...). Pads the genome to the
 * layout size when max_size allows; returns the new size. */
size_t gr_codec_mutate(const gr_codec *codec, uint8_t *genome, size_t size, size_t max_size,
                       uint64_t seed);

#endif
