#include "oracle/detector.h"

#include <stdlib.h>

#include "oracle/fsm.h"
#include "oracle/hb.h"

struct gr_detector {
    gr_detector_options opt;
    uint32_t tpb; /* threads per block: a shared granule's block */
    gr_fsm *fsm;
    gr_hb *hb;
    gr_race_set races;
    gr_detector_stats stats;
    bool oom;
};

static void collect(void *user, const gr_race *race) {
    gr_detector *d = user;
    d->stats.races++;
    if (!gr_race_set_add(&d->races, race, NULL)) d->oom = true;
    if (d->opt.on_race) d->opt.on_race(d->opt.user, race);
}

gr_detector *gr_detector_create(const gr_launch_geometry *geom, const gr_detector_options *opt,
                                gr_error *err) {
    gr_detector *d = calloc(1, sizeof *d);
    if (!d) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory creating a race detector");
        return NULL;
    }
    d->opt = *opt;
    d->tpb = gr_geom_threads_per_block(geom);
    bool lockstep = opt->warp_model == GR_WARP_LOCKSTEP;
    gr_hb_options hb = {.memory_limit = opt->memory_limit, .track_only = opt->track_only,
                        .history_budget = opt->history_budget};
    if (opt->kind == GR_DETECTOR_HB)
        d->hb = gr_hb_create_with(geom, lockstep, &hb, collect, d, err);
    else d->fsm = gr_fsm_create(geom, lockstep, collect, d, err);
    if (!d->hb && !d->fsm) {
        free(d);
        return NULL;
    }
    return d;
}

static bool finish(gr_detector *d, bool ok, gr_error *err) {
    if (ok && d->oom) return gr_fail(err, GR_ERR_NOMEM, "out of memory recording races");
    return ok;
}

/* ---- the FSM's flagged granules ----
 * An FSM verdict is noticed by comparing its race and undecided counts before and after a
 * call: cheap, and it needs nothing from the FSM beyond what it reports anyway. */

typedef struct verdicts {
    uint64_t races, undecided;
} verdicts;

static verdicts verdicts_now(const gr_detector *d) {
    return (verdicts){d->stats.races, d->fsm ? gr_fsm_undecided(d->fsm) : 0};
}

static bool verdicts_changed(const gr_detector *d, verdicts before) {
    verdicts now = verdicts_now(d);
    return now.races != before.races || now.undecided != before.undecided;
}

static void flag(gr_detector *d, const gr_access *a, uint64_t addr) {
    if (a->space != GR_SPACE_GLOBAL && a->space != GR_SPACE_SHARED) return;
    uint32_t block = a->space == GR_SPACE_SHARED ? a->thread / d->tpb : 0;
    if (!gr_granule_set_add(d->opt.flagged, a->space, block, addr, a->size)) d->oom = true;
}

bool gr_detector_feed(gr_detector *d, const gr_event *ev, gr_error *err) {
    if (ev->type == GR_EV_ACCESS) return gr_detector_access(d, &ev->u.access, err);
    d->stats.events++;
    verdicts before = verdicts_now(d);
    bool ok = d->hb ? gr_hb_event(d->hb, ev, err) : gr_fsm_event(d->fsm, ev, err);
    /* A verdict outside an access names no granule: confirm them all. */
    if (d->opt.flagged && d->fsm && verdicts_changed(d, before)) d->opt.flagged->all = true;
    return finish(d, ok, err);
}

bool gr_detector_access(gr_detector *d, const gr_access *a, gr_error *err) {
    d->stats.events++;
    d->stats.accesses++;
    verdicts before = verdicts_now(d);
    bool ok = d->hb ? gr_hb_access(d->hb, a, err) : gr_fsm_feed_access(d->fsm, a, err);
    if (d->opt.flagged && d->fsm && verdicts_changed(d, before)) flag(d, a, a->addr);
    return finish(d, ok, err);
}

bool gr_detector_access_lanes(gr_detector *d, const gr_access *proto, uint32_t lane_mask,
                              uint32_t first_thread, const uint64_t *addr, gr_error *err) {
    uint32_t lanes = gr_lane_count(lane_mask);
    d->stats.events += lanes;
    d->stats.accesses += lanes;
    if (d->fsm) {
        verdicts before = verdicts_now(d);
        bool ok = gr_fsm_feed_lanes(d->fsm, proto, lane_mask, first_thread, addr, err);
        if (d->opt.flagged && verdicts_changed(d, before)) {
            gr_access a = *proto;
            for (uint32_t m = lane_mask; m; m &= m - 1) {
                uint32_t l = (uint32_t)__builtin_ctz(m);
                a.thread = first_thread + l;
                flag(d, &a, addr[l]);
            }
        }
        return finish(d, ok, err);
    }
    gr_access a = *proto;
    for (uint32_t m = lane_mask; m; m &= m - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(m);
        a.thread = first_thread + l;
        a.addr = addr[l];
        if (!finish(d, gr_hb_access(d->hb, &a, err), err)) return false;
    }
    return true;
}

bool gr_detector_feed_lanes(gr_detector *d, const gr_event *ev, uint32_t lane_mask,
                            uint32_t first_thread, gr_error *err) {
    if (d->fsm) {
        d->stats.events += gr_lane_count(lane_mask);
        verdicts before = verdicts_now(d);
        bool ok = gr_fsm_event_lanes(d->fsm, ev, lane_mask, first_thread, err);
        if (d->opt.flagged && verdicts_changed(d, before)) d->opt.flagged->all = true;
        return finish(d, ok, err);
    }
    gr_event e = *ev;
    for (uint32_t m = lane_mask; m; m &= m - 1) {
        if (!gr_event_set_thread(&e, first_thread + (uint32_t)__builtin_ctz(m)))
            return gr_fail(err, GR_ERR_INTERNAL, "event type %u is not a per-thread event",
                           e.type);
        d->stats.events++;
        if (!finish(d, gr_hb_event(d->hb, &e, err), err)) return false;
    }
    return true;
}

const gr_race_set *gr_detector_races(const gr_detector *d) { return &d->races; }

gr_detector_stats gr_detector_get_stats(const gr_detector *d) {
    gr_detector_stats s = d->stats;
    if (d->fsm) {
        s.undecided = gr_fsm_undecided(d->fsm);
        s.shadow_bytes = gr_fsm_shadow_bytes(d->fsm);
        s.tracked_bytes = gr_fsm_tracked_bytes(d->fsm);
    } else {
        s.memory_bytes = gr_hb_memory(d->hb);
        s.memory_peak = gr_hb_memory_peak(d->hb);
        s.over_memory_limit = gr_hb_over_limit(d->hb);
    }
    return s;
}

void gr_detector_destroy(gr_detector *d) {
    if (!d) return;
    gr_fsm_destroy(d->fsm);
    gr_hb_destroy(d->hb);
    gr_race_set_free(&d->races);
    free(d);
}
