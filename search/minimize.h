/* minimize.h — delta debugging over a structured launch: the smallest input that still shows a
 * finding (`gpurace minimize`, and every new finding of a campaign).
 *
 * Reductions, repeated until none applies or the try budget is spent: the simplest schedule
 * (round-robin), fewer blocks (grid axes toward 1), fewer threads (block axes toward 1, 2, 32,
 * 33, 64 or half), less dynamic shared memory, scalars toward 0 and small values, buffer
 * elements set to zero in halving chunks. A candidate must satisfy the spec (when it does not,
 * it goes once through the codec, which rebuilds buffer lengths from their expressions) and
 * the predicate, typically "the same signature with the same thread relation reproduces"
 * (gr_minimize_same_finding). */
#ifndef GR_SEARCH_MINIMIZE_H
#define GR_SEARCH_MINIMIZE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "corpus/codec.h"
#include "corpus/launch.h"
#include "search/runner.h"

typedef bool (*gr_minimize_pred)(void *ctx, const gr_input *candidate);

typedef struct gr_minimize_stats {
    int tries;    /* predicate evaluations */
    int accepted; /* reductions kept */
} gr_minimize_stats;

/* A minimization that runs a few tries at a time: a campaign interleaves it with the search, so
 * minimizing never takes the search's time in one piece. The walk resumes where the last step
 * stopped; a whole gr_minimize_input is one step with the whole budget. */
typedef struct gr_minimizer gr_minimizer;
gr_minimizer *gr_minimizer_new(const gr_codec *codec, const gr_input *start, gr_minimize_pred pred,
                               void *ctx, int max_tries, gr_error *err);
/* Runs up to `tries` predicate evaluations, for at most `max_seconds` (0: no limit); true when
 * the minimization is over (nothing smaller left to try, or its try budget spent). */
bool gr_minimizer_step(gr_minimizer *m, int tries, double max_seconds);
bool gr_minimizer_done(const gr_minimizer *m);
const gr_input *gr_minimizer_best(const gr_minimizer *m);
gr_minimize_stats gr_minimizer_stats(const gr_minimizer *m);
void gr_minimizer_free(gr_minimizer *m);

/* `codec` may be NULL (no repair of candidates that break the spec; those are skipped).
 * `*out` gets the smallest input found (a copy of `start` at worst). */
bool gr_minimize_input(const gr_codec *codec, const gr_input *start, gr_minimize_pred pred,
                       void *ctx, int max_tries, gr_input *out, gr_minimize_stats *stats,
                       gr_error *err);

/* The same, ending after `max_seconds` as well (0: no time limit): a campaign minimizes inside
 * one execution of libFuzzer, whose per-input timeout would end the worker. */
bool gr_minimize_input_within(const gr_codec *codec, const gr_input *start, gr_minimize_pred pred,
                              void *ctx, int max_tries, double max_seconds, gr_input *out,
                              gr_minimize_stats *stats, gr_error *err);

/* Minimizes for "a finding with `signature` and relation `rel` reproduces on `runner`". */
bool gr_minimize_same_finding(gr_runner *runner, const gr_codec *codec, const gr_input *start,
                              uint64_t signature, gr_search_relation rel, int max_tries,
                              gr_input *out, gr_minimize_stats *stats, gr_error *err);
bool gr_minimize_same_finding_within(gr_runner *runner, const gr_codec *codec,
                                     const gr_input *start, uint64_t signature,
                                     gr_search_relation rel, int max_tries, double max_seconds,
                                     gr_input *out, gr_minimize_stats *stats, gr_error *err);

#endif
