/* detector.h — one race detector interface over both implementations.
 *
 *   gr_detector_options opt = {.kind = GR_DETECTOR_FSM, .warp_model = GR_WARP_ITS};
 *   gr_detector *d = gr_detector_create(&geom, &opt, &err);
 *   for each event the backend produces: gr_detector_feed(d, &ev, &err);
 *   const gr_race_set *races = gr_detector_races(d);   // deduplicated, first example + count
 *   gr_detector_destroy(d);
 *
 * The event contract is in events.h. Semantics: docs/semantics.md. The options also bound the
 * happens-before detector (memory limit, history budget), let it keep histories for a set of
 * granules only, and let the FSM record the granules of its races and undecided accesses: an
 * FSM run's flagged set is what a confirming HB run tracks. */
#ifndef GR_ORACLE_DETECTOR_H
#define GR_ORACLE_DETECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "oracle/events.h"
#include "oracle/race.h"

typedef enum gr_detector_kind { GR_DETECTOR_FSM = 0, GR_DETECTOR_HB } gr_detector_kind;
typedef enum gr_warp_model { GR_WARP_ITS = 0, GR_WARP_LOCKSTEP } gr_warp_model;

typedef struct gr_detector_options {
    gr_detector_kind kind;
    gr_warp_model warp_model;
    gr_race_fn on_race;  /* optional: every occurrence, before deduplication */
    void *user;
    /* HB: bytes it may hold (0: no limit). An event that would need more fails with
     * GR_ERR_UNSUPPORTED and gr_detector_stats.over_memory_limit; see hb.h. */
    size_t memory_limit;
    /* HB: keep access histories for these granules only (NULL: all); the set must outlive
     * the detector. Used to confirm an FSM run: what `flagged` collected there. */
    const gr_granule_set *track_only;
    /* HB: compare each access with at most this many earlier accesses on average (0: no
     * bound); see hb.h. */
    uint32_t history_budget;
    /* FSM: add to this set (may be NULL) the granules of every access that raced or was left
     * undecided (all granules of its lane group), or mark it `all` when an undecided verdict
     * came from an event that is not an access. Must outlive the detector. */
    gr_granule_set *flagged;
} gr_detector_options;

typedef struct gr_detector_stats {
    uint64_t events;
    uint64_t accesses;
    uint64_t races;         /* occurrences */
    uint64_t undecided;     /* FSM: accesses it could not decide (kept silent) */
    size_t shadow_bytes;    /* FSM: shadow memory in use */
    size_t tracked_bytes;   /* FSM: user bytes that shadow covers */
    size_t memory_bytes;    /* HB: bytes held now (its own accounting) */
    size_t memory_peak;     /* HB: the most it held */
    bool over_memory_limit; /* HB: an event failed because it would have passed the limit */
} gr_detector_stats;

typedef struct gr_detector gr_detector;

gr_detector *gr_detector_create(const gr_launch_geometry *geom, const gr_detector_options *opt,
                                gr_error *err);
/* Feeds one event. Fails only for malformed events (thread out of range, barrier completing
 * with no arrival) or when out of memory. */
bool gr_detector_feed(gr_detector *d, const gr_event *ev, gr_error *err);
/* The same for an access, without building a gr_event. */
bool gr_detector_access(gr_detector *d, const gr_access *a, gr_error *err);
/* One instruction executed by a group of lanes (a warp's active lanes): for each lane l of
 * lane_mask in increasing order, the access `proto` by thread first_thread + l at addr[l]
 * (proto's thread and addr are ignored). The same verdicts, races and statistics as
 * gr_detector_access() lane by lane, stopping at the first failing lane; the FSM decides the
 * group in one pass. On failure the statistics count the whole group. */
bool gr_detector_access_lanes(gr_detector *d, const gr_access *proto, uint32_t lane_mask,
                              uint32_t first_thread, const uint64_t *addr, gr_error *err);
/* A per-thread event (GR_EV_BARRIER_ARRIVE, GR_EV_FENCE or GR_EV_THREAD_EXIT; its thread field
 * is ignored) by each lane l of lane_mask in increasing order, as thread first_thread + l: the
 * same as gr_detector_feed() lane by lane, stopping at the first failing lane. Other event
 * types fail (GR_ERR_INTERNAL). */
bool gr_detector_feed_lanes(gr_detector *d, const gr_event *ev, uint32_t lane_mask,
                            uint32_t first_thread, gr_error *err);
const gr_race_set *gr_detector_races(const gr_detector *d);
gr_detector_stats gr_detector_get_stats(const gr_detector *d);
void gr_detector_destroy(gr_detector *d);

#endif
