/* amplify.h — amplifying a program's own launches (`gpurace fuzz --seeds DIR`).
 *
 * A genome here does not describe a launch from scratch: it names one of the seeds (launches the
 * program's tests made, valid by construction) and a few changes to it, so the search starts
 * from the tests and moves away from them in small steps:
 *   - contents first: an element set to a boundary of its generator's range, copied into another
 *     position (a repeated index), two elements swapped or a stretch shuffled (another order), a
 *     stretch filled with one value, a buffer drawn again from its generator, a free scalar set
 *     to another value of its domain;
 *   - sizes near the recorded ones (n + 1, 2n, n / 2, ...) that keep the spec's relations: buffer
 *     lengths, graphs, shared bytes and the grid follow, and a size that cannot keep them is not
 *     used;
 *   - launch shapes only where the spec lets them vary;
 *   - the schedule always.
 * Launch shapes and sizes never leave the spec. Contents may: a permutation with a repeated
 * value, unsorted data where sorted data was recorded. Each decoded input says what it is: a
 * seed as recorded (schedule aside), an input within the spec, or one outside it with the first
 * property it breaks, which is the assumption a finding on it needs.
 *
 * Layout (GR_AMP_GENOME_SIZE bytes; short genomes read as zeros, so all zeros is the first seed
 * under round-robin scheduling):
 *   0   seed (u32, modulo the number of seeds)
 *   4   schedule: kind (u8), depth (u8), quantum (u16), seed (u64), read as the codec reads them
 *   16  launch shape: op (u8: 1 a grid axis, 2 a block axis, else none), axis (u8), value (u32 @20)
 *   24  size: op (u8: 1 change a size, else none), which (u8), value (u32 @28)
 *   32  8 edits of 16 bytes: op (u8), which buffer or scalar (u8), span (u16), a (u32), b (u64) */
#ifndef GR_SEARCH_AMPLIFY_H
#define GR_SEARCH_AMPLIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "corpus/launch.h"
#include "corpus/spec.h"

enum { GR_AMP_EDITS = 8, GR_AMP_GENOME_SIZE = 32 + 16 * GR_AMP_EDITS };

typedef enum gr_amp_origin {
    GR_AMP_RECORDED = 0, /* a launch the program made, as recorded (the schedule may differ) */
    GR_AMP_SPEC,         /* within the spec, not a recorded launch */
    GR_AMP_OUTSIDE,      /* outside the spec: its contents break a property the spec states */
} gr_amp_origin;

const char *gr_amp_origin_name(gr_amp_origin o); /* "recorded", "spec", "outside-spec" */

typedef struct gr_amplifier gr_amplifier;

/* `seeds` are copied; `recorded[i]` says whether seed i is a launch the program made (else a
 * starting point from elsewhere, such as a libFuzzer corpus). `spec` must outlive it. Seeds
 * must fit the spec's kernel signature. */
gr_amplifier *gr_amplifier_new(const gr_spec *spec, const gr_input *const *seeds, const bool *recorded,
                               int nseeds, gr_error *err);
void gr_amplifier_free(gr_amplifier *a);
int gr_amplifier_nseeds(const gr_amplifier *a);
/* How many seeds fit the spec (sizes and shapes change only from those). */
int gr_amplifier_nfitting(const gr_amplifier *a);

/* The genome of seed `i` as it is, with its recorded schedule (GR_AMP_GENOME_SIZE bytes). */
void gr_amplifier_seed_genome(const gr_amplifier *a, int i, uint8_t genome[GR_AMP_GENOME_SIZE]);

typedef struct gr_amp_input {
    gr_input input;
    int seed;              /* the seed it starts from */
    gr_amp_origin origin;
    char assumption[400];  /* GR_AMP_OUTSIDE: the property it breaks, in words */
} gr_amp_input;

/* Any bytes decode (false only when memory runs out). */
bool gr_amplifier_decode(const gr_amplifier *a, const uint8_t *genome, size_t size, gr_amp_input *out,
                         gr_error *err);
void gr_amp_input_free(gr_amp_input *in);

/* What an input (a minimized one, say) is: a seed as recorded (`*seed` gets which), within the
 * spec, or outside it (`why` gets the property it breaks). */
gr_amp_origin gr_amplifier_classify(const gr_amplifier *a, const gr_input *in, int *seed, char *why,
                                    size_t whylen);

/* Whether an input keeps the spec's structure (launch, scalars, lengths, preconditions), its
 * contents aside: what a finding outside the spec keeps while it is minimized, so the assumption
 * it needs stays one about contents. */
bool gr_amplifier_fits_structure(const gr_amplifier *a, const gr_input *in);

/* libFuzzer's custom mutator and crossover for these genomes. */
size_t gr_amplifier_mutate(const gr_amplifier *a, uint8_t *genome, size_t size, size_t max_size, uint64_t seed);
size_t gr_amplifier_crossover(const uint8_t *x, size_t nx, const uint8_t *y, size_t ny, uint8_t *out,
                              size_t max_size, uint64_t seed);

#endif
