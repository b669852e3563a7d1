/* feedback.h — what libFuzzer sees of one execution: a byte array of counters (placed by the
 * fuzzing worker in the `__libfuzzer_extra_counters` section) filled from the launch result.
 *
 * Layout of an array of `n` bytes (n a power of two, at least 1024), every index hashed into
 * its region:
 *   [0, n/2)        kernel coverage: per basic block its hit count (libFuzzer buckets counter
 *                   values 1, 2, 3, 4-7, ...), plus a feature per (block, log2 of hits per
 *                   launched thread) so "this loop ran twice per thread" is new even when the
 *                   total saturates; and per integer setp the fewest bits in which its operands
 *                   differed (libFuzzer's value profile: closer operands are new features);
 *   [n/2, 3n/4)     detector features: each finding's signature with the thread relation
 *                   (same warp / other warp / other block), each finding class with its
 *                   instruction, dropped-finding pressure; with `fuzz --oracle seqcmp`, output
 *                   divergences (gr_feedback_add_feature);
 *   [3n/4, n)       launch and schedule outcomes: the exit status, the launch shape (log2 of
 *                   blocks, warps per block, partial warps), the schedule kind, log2 of
 *                   thread-instructions executed.
 * The status feature is always set, so every execution sets at least one counter (libFuzzer
 * stops with "no interesting inputs" otherwise). */
#ifndef GR_SEARCH_FEEDBACK_H
#define GR_SEARCH_FEEDBACK_H

#include <stddef.h>
#include <stdint.h>

#include "corpus/launch.h"
#include "exec/backend.h"

enum { GR_FEEDBACK_DEFAULT_SIZE = 1 << 16 };

/* Adds the features of one execution to `counters` (which the caller cleared, or libFuzzer
 * did). Returns how many counters it set. */
size_t gr_feedback_fill(uint8_t *counters, size_t n, const gr_input *in,
                        const gr_launch_result *res);
/* Adds one more feature of the execution in the detector region, e.g. an output divergence
 * (oracle/seqcmp's gr_seqcmp_feature); 0 adds nothing. Returns the counters it set (0 or 1). */
size_t gr_feedback_add_feature(uint8_t *counters, size_t n, uint64_t feature);

#endif
