/* fsm.h — the shadow-FSM detector on the host (the simulator's default detector).
 *
 * Constant-size shadow: one 64-bit word per 4-byte granule (fsm_rules.h), updated by the shared
 * transition function; per-thread synchronization state of a few bytes (barrier epoch, warp
 * epoch, acquire taint, fence level). Where constant space cannot decide whether two accesses
 * are ordered it stays silent and counts the access as undecided.
 * Most users go through detector.h; this header is for the bench and tests. */
#ifndef GR_ORACLE_FSM_H
#define GR_ORACLE_FSM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "oracle/events.h"
#include "oracle/race.h"

typedef struct gr_fsm gr_fsm;

/* Lanes in a lane mask: a population count that needs no library call on targets without a
 * popcount instruction (the batched entry points count lanes per call). */
static inline uint32_t gr_lane_count(uint32_t m) {
    m = m - ((m >> 1) & 0x55555555u);
    m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
    return (((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

/* Fails (GR_ERR_UNSUPPORTED) for grids of more than GR_FSM_MAX_THREADS threads. */
gr_fsm *gr_fsm_create(const gr_launch_geometry *geom, bool lockstep, gr_race_fn on_race,
                      void *user, gr_error *err);
bool gr_fsm_event(gr_fsm *f, const gr_event *ev, gr_error *err);
/* A per-thread event (barrier arrival, fence, thread exit) by each lane l of lane_mask in
 * increasing order, as thread first_thread + l: the same as gr_fsm_event() lane by lane. */
bool gr_fsm_event_lanes(gr_fsm *f, const gr_event *ev, uint32_t lane_mask,
                        uint32_t first_thread, gr_error *err);
bool gr_fsm_feed_access(gr_fsm *f, const gr_access *a, gr_error *err);
/* One instruction's accesses by a group of lanes: for each lane l of lane_mask in increasing
 * order, `proto` with thread first_thread + l and address addr[l]. Exactly the transitions,
 * races and errors of gr_fsm_feed_access() lane by lane, computed faster. */
bool gr_fsm_feed_lanes(gr_fsm *f, const gr_access *proto, uint32_t lane_mask,
                       uint32_t first_thread, const uint64_t *addr, gr_error *err);
/* Accesses whose verdict constant space could not decide (reported as silence). */
uint64_t gr_fsm_undecided(const gr_fsm *f);
/* Shadow memory in use and the bytes of user memory it tracks (granules * 4). */
size_t gr_fsm_shadow_bytes(const gr_fsm *f);
size_t gr_fsm_tracked_bytes(const gr_fsm *f);
void gr_fsm_destroy(gr_fsm *f);

/* Snapshots, for state-space exploration (tests/oracle_deep). gr_fsm_copy() makes `dst` (created
 * with the same geometry and warp model) continue exactly as `src` would, undecided count
 * included; dst keeps its own race callback. gr_fsm_clone() creates such a copy. */
bool gr_fsm_copy(gr_fsm *dst, const gr_fsm *src, gr_error *err);
gr_fsm *gr_fsm_clone(const gr_fsm *src, gr_race_fn on_race, void *user, gr_error *err);
/* A canonical description of everything that decides future verdicts (shadow words less their
 * instruction ids, per-thread, per-warp and per-block synchronization state; not the undecided
 * count): two detectors of one launch with equal descriptions decide every continuation alike.
 * Writes up to `cap` words to `out` and returns the description's length (larger than cap:
 * call again with more room), or 0 when the state is too large to describe. */
size_t gr_fsm_canonical_state(const gr_fsm *f, uint64_t *out, size_t cap);

#endif
