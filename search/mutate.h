/* mutate.h — the search's structure-aware mutations of genomes (libFuzzer's custom mutator and
 * crossover call these) and the dictionary of constants taken from the kernel's PTX.
 *
 * A mutation is one of: the codec's own field mutation (launch values near 1/31/32/33/64 and
 * powers of two, scalar bounds, duplicated indices, swapped permutation keys, other schedules),
 * a dictionary mutation (a scalar, or one to three elements of one buffer, set to a constant the
 * kernel compares against, or its neighbor), a stack of several codec mutations, or libFuzzer's
 * byte-level mutation as a fallback. Crossover takes each genome field from one parent or the
 * other, so children stay decodable and local. */
#ifndef GR_SEARCH_MUTATE_H
#define GR_SEARCH_MUTATE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "corpus/codec.h"

enum { GR_DICT_MAX = 256 };

typedef struct gr_dictionary {
    int64_t values[GR_DICT_MAX];
    int n;
} gr_dictionary;

/* Integer immediates of the PTX text's instructions (comparisons, bounds, masks), without
 * duplicates, small ones (-1..2) left out as the codec finds those anyway. */
void gr_dictionary_from_ptx(const char *ptx, gr_dictionary *d);

/* Byte-level fallback (libFuzzer's LLVMFuzzerMutate in the worker; may be NULL). */
typedef size_t (*gr_raw_mutate_fn)(uint8_t *data, size_t size, size_t max_size);

size_t gr_search_mutate(const gr_codec *codec, const gr_dictionary *dict, uint8_t *data,
                        size_t size, size_t max_size, uint64_t seed, gr_raw_mutate_fn raw);

size_t gr_search_crossover(const gr_codec *codec, const uint8_t *a, size_t na, const uint8_t *b,
                           size_t nb, uint8_t *out, size_t max_size, uint64_t seed);

#endif
