/* hb.h — the precise happens-before detector (`--detector hb`, simulator only).
 *
 * Vector clocks over threads, stored per block as segments that clocks share copy-on-write (the
 * threads of a block that left a barrier together hold one segment; a thread's own entry is
 * kept beside it), so a launch costs memory in proportion to its blocks and to what its
 * threads learned from each other, not to threads x threads. Shadow per 4-byte granule:
 * FastTrack-style lists of the accesses that may still race (writes and reads, each with the
 * bytes it touched), pruned when a later access happens after and covers them. Release/acquire
 * per location with scopes; reads-from is the latest write in event order (the simulator is
 * sequentially consistent). Every access that races with an earlier one is reported (at least
 * one partner per access).
 *
 * Memory: the detector counts its own allocations. With a limit, an event that would pass it
 * fails with GR_ERR_UNSUPPORTED (gr_hb_over_limit() then says so) and the detector accepts no
 * further events; it never grows past the limit. Time may be bounded likewise
 * (gr_hb_options.history_budget).
 * Most users go through detector.h. */
#ifndef GR_ORACLE_HB_H
#define GR_ORACLE_HB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "oracle/events.h"
#include "oracle/race.h"

typedef struct gr_hb gr_hb;

typedef struct gr_hb_options {
    size_t memory_limit; /* bytes the detector may hold; 0: no limit */
    /* Keep access histories for these granules only (NULL: every granule). Synchronization is
     * followed in full either way, so the verdicts on these granules are those of a detector
     * that tracks everything. The set must outlive the detector. */
    const gr_granule_set *track_only;
    /* Compare each access with at most this many earlier ones on average, after the first
     * `history_grace` comparisons (0: no bound). Over it an access fails with GR_ERR_UNSUPPORTED, and so does
     * every later event: a bound on time, in a unit that does not depend on the machine, for
     * launches where many threads access the same bytes unordered (histories grow with them,
     * and each access is checked against the whole history). */
    uint32_t history_budget;
    uint64_t history_grace; /* comparisons before the budget applies; 0: 2^26 */
} gr_hb_options;

/* `opt` may be NULL: no limit, every granule. */
gr_hb *gr_hb_create(const gr_launch_geometry *geom, bool lockstep, gr_race_fn on_race, void *user,
                    gr_error *err);
gr_hb *gr_hb_create_with(const gr_launch_geometry *geom, bool lockstep, const gr_hb_options *opt,
                         gr_race_fn on_race, void *user, gr_error *err);
bool gr_hb_event(gr_hb *h, const gr_event *ev, gr_error *err);
bool gr_hb_access(gr_hb *h, const gr_access *a, gr_error *err);
void gr_hb_destroy(gr_hb *h);

/* The detector's own accounting: bytes held now, the most it held, and whether an allocation
 * was refused because of the limit. */
size_t gr_hb_memory(const gr_hb *h);
size_t gr_hb_memory_peak(const gr_hb *h);
bool gr_hb_over_limit(const gr_hb *h);

/* Snapshots, for state-space exploration (tests/oracle_deep). gr_hb_copy() makes `dst` (created
 * with the same geometry and warp model) continue exactly as `src` would; dst keeps its own race
 * callback, limit and tracked granules. gr_hb_clone() creates such a copy with the given
 * callback. */
bool gr_hb_copy(gr_hb *dst, const gr_hb *src, gr_error *err);
gr_hb *gr_hb_clone(const gr_hb *src, gr_race_fn on_race, void *user, gr_error *err);
/* A canonical description of everything that decides future verdicts: two detectors of one
 * launch with equal descriptions report, for every continuation, races on the same accesses
 * with the same kinds, flags and causes (partners' instruction ids aside, which the description
 * leaves out; clock values appear as ranks per thread). Writes up to `cap` words to `out` and
 * returns the description's length (larger than cap: call again with more room), or 0 when
 * the state is too large to describe (launches far beyond a few warps). */
size_t gr_hb_canonical_state(const gr_hb *h, uint64_t *out, size_t cap);

#endif
