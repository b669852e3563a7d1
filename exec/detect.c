/* detect.c — the adapter between backend events and oracle/ detectors (see detect.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/detect.h"

struct gr_exec_detector {
    gr_exec_hooks hooks;
    const gr_exec_hooks *chain;
    gr_detector *det;
    gr_launch_geometry geom;
    gr_warp_model model;
    uint32_t threads_per_block;
    bool confirming; /* HB over the granules an FSM run flagged */
    gr_error err;    /* first feed failure */
};

static uint8_t map_scope(uint8_t ptx_scope_) {
    switch (ptx_scope_) {
    case PTX_SCOPE_CTA: return GR_SCOPE_CTA;
    case PTX_SCOPE_SYS: return GR_SCOPE_SYS;
    default: return GR_SCOPE_GPU;
    }
}

static uint8_t map_sem(uint8_t s) {
    switch (s) {
    case PTX_SEM_ACQUIRE: return GR_SEM_ACQUIRE;
    case PTX_SEM_RELEASE: return GR_SEM_RELEASE;
    case PTX_SEM_ACQ_REL: return GR_SEM_ACQ_REL;
    case PTX_SEM_SC: return GR_SEM_SC;
    default: return GR_SEM_RELAXED;
    }
}

static uint8_t map_atomic_op(uint8_t subop) {
    switch (subop) {
    case PTX_SUBOP_ADD: return GR_ATOM_ADD;
    case PTX_SUBOP_EXCH: return GR_ATOM_EXCH;
    case PTX_SUBOP_CAS: return GR_ATOM_CAS;
    case PTX_SUBOP_MIN: return GR_ATOM_MIN;
    case PTX_SUBOP_MAX: return GR_ATOM_MAX;
    case PTX_SUBOP_AND: return GR_ATOM_AND;
    case PTX_SUBOP_OR: return GR_ATOM_OR;
    case PTX_SUBOP_XOR: return GR_ATOM_XOR;
    case PTX_SUBOP_INC: return GR_ATOM_INC;
    case PTX_SUBOP_DEC: return GR_ATOM_DEC;
    default: return GR_ATOM_ADD;
    }
}

static void feed(gr_exec_detector *d, const gr_event *ev) {
    if (gr_error_failed(&d->err)) return;
    gr_detector_feed(d->det, ev, &d->err);
}

static void on_access(void *ctx, const gr_access_event *e) {
    gr_exec_detector *d = ctx;
    /* Lockstep: a warp issues one instruction at a time, so whatever any of its lanes did
     * before (on any path, exited lanes included) comes before this instruction's accesses;
     * lanes within the instruction stay unordered. Detectors clamp the mask to the block. */
    if (d->model == GR_WARP_LOCKSTEP) {
        gr_event st = {.type = GR_EV_WARP_STEP};
        st.u.warp.block = e->block_linear;
        st.u.warp.warp = e->warp;
        st.u.warp.mask = UINT32_MAX;
        feed(d, &st);
    }
    gr_event ev = {.type = GR_EV_ACCESS};
    gr_access *a = &ev.u.access;
    a->instr = e->insn_id;
    a->size = e->size;
    a->space = e->space == PTX_SPACE_SHARED ? GR_SPACE_SHARED : GR_SPACE_GLOBAL;
    bool strong_ld_st = e->sem == PTX_SEM_RELAXED || e->sem == PTX_SEM_ACQUIRE ||
                        e->sem == PTX_SEM_RELEASE || e->sem == PTX_SEM_ACQ_REL;
    if (e->kind == GR_EXEC_ATOMIC) {
        a->kind = GR_ACCESS_ATOMIC;
        a->op = map_atomic_op(e->atomic_op);
        if (e->atomic_op == 0) a->op = GR_ATOM_RED;
    } else if (strong_ld_st) {
        a->kind = GR_ACCESS_ATOMIC;
        a->op = e->kind == GR_EXEC_READ ? GR_ATOM_LD : GR_ATOM_ST;
    } else {
        a->kind = e->kind == GR_EXEC_READ ? GR_ACCESS_READ : GR_ACCESS_WRITE;
        if (e->sem == PTX_SEM_VOLATILE) a->flags = GR_ACCESS_VOLATILE;
    }
    a->scope = map_scope(e->scope);
    a->sem = map_sem(e->sem);
    uint32_t base = e->block_linear * d->threads_per_block + e->first_thread;
    /* The whole lane group in one call; shared addresses become offsets in the block's window. */
    const uint64_t *addr = e->addr;
    uint64_t shared_addr[32];
    if (a->space == GR_SPACE_SHARED) {
        for (uint32_t m = e->lane_mask; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            shared_addr[l] = e->addr[l] - 0x10000000000ull;
        }
        addr = shared_addr;
    }
    if (!gr_error_failed(&d->err))
        gr_detector_access_lanes(d->det, a, e->lane_mask, base, addr, &d->err);
    if (d->chain && d->chain->access) d->chain->access(d->chain->ctx, e);
}

/* A per-thread event by every lane of the mask. */
static void feed_lanes(gr_exec_detector *d, const gr_event *ev, uint32_t lane_mask,
                       uint32_t first_thread) {
    if (gr_error_failed(&d->err)) return;
    gr_detector_feed_lanes(d->det, ev, lane_mask, first_thread, &d->err);
}

static void on_sync(void *ctx, const gr_sync_event *e) {
    gr_exec_detector *d = ctx;
    uint32_t base = e->block_linear * d->threads_per_block + e->warp * 32;
    gr_event ev;
    memset(&ev, 0, sizeof ev);
    switch ((gr_sync_kind)e->kind) {
    case GR_SYNC_BAR_WAIT:
    case GR_SYNC_BAR_ARRIVE:
        ev.type = GR_EV_BARRIER_ARRIVE;
        ev.u.arrive.barrier = e->barrier_id;
        ev.u.arrive.expected = e->expected;
        ev.u.arrive.waits = e->kind == GR_SYNC_BAR_WAIT;
        feed_lanes(d, &ev, e->lane_mask, base);
        break;
    case GR_SYNC_BARRIER:
        ev.type = GR_EV_BARRIER_COMPLETE;
        ev.u.complete.block = e->block_linear;
        ev.u.complete.barrier = e->barrier_id;
        feed(d, &ev);
        break;
    case GR_SYNC_WARP:
        ev.type = GR_EV_WARP_SYNC;
        ev.u.warp.block = e->block_linear;
        ev.u.warp.warp = e->warp;
        ev.u.warp.mask = e->lane_mask;
        ev.u.warp.kind = e->warp_op == 1   ? GR_WARP_SHFL
                         : e->warp_op == 2 ? GR_WARP_VOTE
                         : e->warp_op == 3 ? GR_WARP_MATCH
                         : e->warp_op == 4 ? GR_WARP_REDUX
                                           : GR_WARP_SYNCWARP;
        feed(d, &ev);
        break;
    case GR_SYNC_FENCE:
        ev.type = GR_EV_FENCE;
        ev.u.fence.scope = map_scope(e->scope);
        ev.u.fence.sem = e->sem == PTX_SEM_ACQ_REL ? GR_SEM_ACQ_REL : GR_SEM_SC;
        feed_lanes(d, &ev, e->lane_mask, base);
        break;
    case GR_SYNC_THREAD_EXIT:
        ev.type = GR_EV_THREAD_EXIT;
        feed_lanes(d, &ev, e->lane_mask, base);
        break;
    }
    if (d->chain && d->chain->sync) d->chain->sync(d->chain->ctx, e);
}

static void on_begin(void *ctx, gr_dim3 grid, gr_dim3 block) {
    gr_exec_detector *d = ctx;
    if (d->chain && d->chain->begin) d->chain->begin(d->chain->ctx, grid, block);
}

/* Plain HB over its memory limit: the detector's words, then what the user can do. */
static bool fail_over_limit(gr_error *err, gr_status status, const char *why) {
    return gr_fail(err, status,
                   "%s: raise --memory-limit, check a launch of fewer blocks, or use --detector "
                   "auto (the default: the shadow FSM, with happens-before only where it reports "
                   "a race or cannot decide)",
                   why);
}

gr_exec_detector *gr_exec_detector_new(const gr_detector_options *opt, gr_dim3 grid, gr_dim3 block,
                                       const gr_exec_hooks *chain, gr_error *err) {
    gr_exec_detector *d = calloc(1, sizeof *d);
    if (!d) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        return NULL;
    }
    d->geom = (gr_launch_geometry){{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, 32};
    d->threads_per_block = block.x * block.y * block.z;
    d->model = opt->warp_model;
    d->confirming = opt->kind == GR_DETECTOR_HB && opt->track_only;
    d->chain = chain;
    gr_error why = GR_ERROR_INIT;
    d->det = gr_detector_create(&d->geom, opt, &why);
    if (!d->det) {
        /* HB refuses a launch whose threads alone pass its limit (GR_ERR_UNSUPPORTED). */
        if (opt->kind == GR_DETECTOR_HB && why.status == GR_ERR_UNSUPPORTED && !d->confirming)
            fail_over_limit(err, why.status, why.message ? why.message : "?");
        else
            gr_fail(err, why.status, "%s", why.message ? why.message : "?");
        gr_error_clear(&why);
        free(d);
        return NULL;
    }
    d->hooks = (gr_exec_hooks){d, on_access, on_sync, on_begin};
    return d;
}

const gr_exec_hooks *gr_exec_detector_hooks(gr_exec_detector *d) { return &d->hooks; }

bool gr_exec_detector_failed(const gr_exec_detector *d) { return gr_error_failed(&d->err); }

static gr_exec_thread thread_of(const gr_exec_detector *d, uint32_t linear) {
    gr_exec_thread t;
    uint32_t b = linear / d->threads_per_block, i = linear % d->threads_per_block;
    t.block.x = b % d->geom.grid[0];
    t.block.y = b / d->geom.grid[0] % d->geom.grid[1];
    t.block.z = b / (d->geom.grid[0] * d->geom.grid[1]);
    t.thread.x = i % d->geom.block[0];
    t.thread.y = i / d->geom.block[0] % d->geom.block[1];
    t.thread.z = i / (d->geom.block[0] * d->geom.block[1]);
    return t;
}

bool gr_exec_detector_finish(gr_exec_detector *d, gr_launch_result *res, uint32_t max_findings,
                             gr_error *err) {
    gr_event end = {.type = GR_EV_KERNEL_END};
    feed(d, &end);
    gr_detector_stats stats = gr_detector_get_stats(d->det);
    res->hb_memory_peak = stats.memory_peak;
    if (gr_error_failed(&d->err)) {
        const char *why = d->err.message ? d->err.message : "?";
        /* A confirmation's failure becomes a note on the FSM's result: the reason alone. */
        if (d->confirming) return gr_fail(err, d->err.status, "%s", why);
        if (stats.over_memory_limit) return fail_over_limit(err, d->err.status, why);
        return gr_fail(err, d->err.status, "race detector: %s", why);
    }
    res->undecided += stats.undecided;
    const gr_race_set *set = gr_detector_races(d->det);
    for (size_t i = 0; i < set->count; i++) {
        if ((uint32_t)res->nfindings >= max_findings) {
            res->findings_dropped++;
            continue;
        }
        gr_finding *nf = realloc(res->findings, (size_t)(res->nfindings + 1) * sizeof *nf);
        if (!nf) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
        res->findings = nf;
        const gr_race *rc = &set->races[i];
        gr_finding *f = &nf[res->nfindings++];
        memset(f, 0, sizeof *f);
        f->cls = GR_FINDING_RACE;
        f->insn_id = rc->second_instr;
        f->insn_id2 = rc->first_instr;
        f->thread = thread_of(d, rc->second_thread);
        f->thread2 = thread_of(d, rc->first_thread);
        /* The shadow FSM keeps one representative per granule; when that is the reporting
         * thread itself, the conflicting access of another thread is only in its summary:
         * name no partner rather than a thread racing with itself. */
        bool partner_summarized = rc->first_thread == rc->second_thread;
        if (partner_summarized) f->insn_id2 = UINT32_MAX;
        f->space = rc->space == GR_SPACE_SHARED ? PTX_SPACE_SHARED : PTX_SPACE_GLOBAL;
        f->address = rc->space == GR_SPACE_SHARED ? rc->addr + 0x10000000000ull : rc->addr;
        snprintf(f->message, sizeof f->message, "%s%s race on %s memory: %s (%llu occurrence%s)",
                 (rc->flags & GR_RACE_VOLATILE) ? "volatile " : "",
                 gr_race_kind_name((gr_race_kind)rc->kind),
                 rc->space == GR_SPACE_SHARED ? "shared" : "global",
                 gr_race_cause_text((gr_race_cause)rc->cause), (unsigned long long)rc->count,
                 rc->count == 1 ? "" : "s");
        if (partner_summarized) {
            size_t used = strlen(f->message);
            snprintf(f->message + used, sizeof f->message - used,
                     "; the other thread's access is in the shadow FSM's summary "
                     "and --detector hb names it");
        }
    }
    return true;
}

void gr_exec_detector_free(gr_exec_detector *d) {
    if (!d) return;
    gr_detector_destroy(d->det);
    gr_error_clear(&d->err);
    free(d);
}
