/* generate.h — filling buffers from genome words (used by the codec; internal to corpus/).
 *
 * Each generator turns a sequence of 64-bit words into element values so that equal words give
 * equal values and the identity of a word (its position) decides which element it controls:
 * mutations of words are mutations of elements. */
#ifndef GR_CORPUS_GENERATE_H
#define GR_CORPUS_GENERATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "corpus/spec.h"

/* The words of one buffer: the first `ndirect` are given, the rest derived from `seed`. */
typedef struct gr_word_source {
    const uint64_t *direct;
    size_t ndirect;
    uint64_t seed;
} gr_word_source;

uint64_t gr_word_at(const gr_word_source *w, uint64_t k);
/* A 64-bit mixing function (SplitMix64's finalizer). */
uint64_t gr_mix64(uint64_t x);

/* A CSR graph's size as the decoder chose it. */
typedef struct gr_csr_shape {
    int64_t nodes;
    uint64_t edges;    /* distinct edges drawn (after capping) */
    uint64_t entries;  /* neighbor-list entries: edges, or 2 x edges when undirected */
    uint64_t universe; /* how many distinct edges exist */
} gr_csr_shape;

/* How many distinct edges `nodes` vertices allow; false when the count overflows. */
bool gr_csr_universe(int64_t nodes, bool directed, bool self_loops, uint64_t *out);
/* Edge number `id` of the universe as (u, v). */
void gr_csr_edge(int64_t nodes, bool directed, bool self_loops, uint64_t id, int64_t *u, int64_t *v);

/* The inverse: the number of edge (u, v); for undirected graphs u <= v. */
uint64_t gr_csr_edge_id(int64_t nodes, bool directed, bool self_loops, int64_t u, int64_t v);

/* Fills `count` elements of `type` at `out` per `g`. Integer bounds come already evaluated in
 * [lo, hi] (uniform, sorted, unique: the range; index_into: [0, length - 1]). On failure
 * writes a reason into why. */
bool gr_generate(const gr_generator *g, gr_elem_type type, uint64_t count, int64_t lo, int64_t hi,
                 const gr_word_source *words, uint8_t *out, char *why, size_t whylen);
/* Fills a CSR graph's offsets (shape->nodes + 1) and neighbors (shape->entries). */
bool gr_generate_csr(const gr_generator *g, const gr_csr_shape *shape, gr_elem_type offsets_type,
                     gr_elem_type neighbors_type, const gr_word_source *words, uint8_t *offsets,
                     uint8_t *neighbors, char *why, size_t whylen);

/* The word that makes generator `g` produce `value` at any position (uniform, choices,
 * sorted, unique, index_into, permutation keys); false when there is none. */
bool gr_generate_word_for(const gr_generator *g, gr_elem_type type, int64_t lo, int64_t hi,
                          uint64_t value_bits, uint64_t *word);

#endif
