#include "trace.h"

#include <stdio.h>
#include <string.h>

void trace_init(trace *t, uint32_t blocks, uint32_t tpb, uint32_t ws) {
    memset(t, 0, sizeof *t);
    t->geom = (gr_launch_geometry){{blocks, 1, 1}, {tpb, 1, 1}, ws};
    t->next_instr = 1;
}

static gr_event *push(trace *t, uint8_t type) {
    if (t->n >= TRACE_MAX) return NULL;
    gr_event *e = &t->ev[t->n++];
    memset(e, 0, sizeof *e);
    e->type = type;
    return e;
}

void tr_access_i(trace *t, uint32_t thread, uint8_t space, uint64_t addr, uint8_t size,
                 uint8_t kind, uint32_t instr) {
    gr_event *e = push(t, GR_EV_ACCESS);
    if (!e) return;
    e->u.access = (gr_access){.addr = addr, .thread = thread, .instr = instr, .space = space,
                              .kind = kind, .size = size};
}

void tr_read(trace *t, uint32_t thread, uint8_t space, uint64_t addr, uint8_t size) {
    tr_access_i(t, thread, space, addr, size, GR_ACCESS_READ, t->next_instr++);
}

void tr_write(trace *t, uint32_t thread, uint8_t space, uint64_t addr, uint8_t size) {
    tr_access_i(t, thread, space, addr, size, GR_ACCESS_WRITE, t->next_instr++);
}

void tr_volatile(trace *t, uint32_t thread, uint64_t addr, bool write) {
    tr_access_i(t, thread, GR_SPACE_GLOBAL, addr, 4, write ? GR_ACCESS_WRITE : GR_ACCESS_READ,
                t->next_instr++);
    t->ev[t->n - 1].u.access.flags = GR_ACCESS_VOLATILE;
}

void tr_atomic(trace *t, uint32_t thread, uint8_t space, uint64_t addr, uint8_t op, uint8_t scope,
               uint8_t sem) {
    gr_event *e = push(t, GR_EV_ACCESS);
    if (!e) return;
    e->u.access = (gr_access){.addr = addr, .thread = thread, .instr = t->next_instr++,
                              .space = space, .kind = GR_ACCESS_ATOMIC, .size = 4, .op = op,
                              .scope = scope, .sem = sem};
}

void tr_fence(trace *t, uint32_t thread, uint8_t scope) {
    gr_event *e = push(t, GR_EV_FENCE);
    if (!e) return;
    e->u.fence.thread = thread;
    e->u.fence.scope = scope;
    e->u.fence.sem = GR_SEM_SC;
}

void tr_arrive(trace *t, uint32_t thread, uint32_t barrier, uint32_t expected, bool waits) {
    gr_event *e = push(t, GR_EV_BARRIER_ARRIVE);
    if (!e) return;
    e->u.arrive.thread = thread;
    e->u.arrive.barrier = barrier;
    e->u.arrive.expected = expected;
    e->u.arrive.waits = waits;
}

void tr_complete(trace *t, uint32_t block, uint32_t barrier) {
    gr_event *e = push(t, GR_EV_BARRIER_COMPLETE);
    if (!e) return;
    e->u.complete.block = block;
    e->u.complete.barrier = barrier;
}

void tr_syncthreads(trace *t, uint32_t block) {
    uint32_t tpb = gr_geom_threads_per_block(&t->geom);
    for (uint32_t i = 0; i < tpb; i++) tr_arrive(t, block * tpb + i, 0, 0, true);
    tr_complete(t, block, 0);
}

static void warp_event(trace *t, uint8_t type, uint32_t block, uint32_t warp, uint32_t mask) {
    gr_event *e = push(t, type);
    if (!e) return;
    e->u.warp.block = block;
    e->u.warp.warp = warp;
    e->u.warp.mask = mask;
}

void tr_warp_sync(trace *t, uint32_t block, uint32_t warp, uint32_t mask) {
    warp_event(t, GR_EV_WARP_SYNC, block, warp, mask);
}

void tr_step(trace *t, uint32_t block, uint32_t warp, uint32_t mask) {
    warp_event(t, GR_EV_WARP_STEP, block, warp, mask);
}

void tr_exit(trace *t, uint32_t thread) {
    gr_event *e = push(t, GR_EV_THREAD_EXIT);
    if (e) e->u.exit.thread = thread;
}

bool trace_run(const trace *t, gr_detector_kind kind, gr_warp_model model, trace_result *out) {
    gr_error err = GR_ERROR_INIT;
    gr_detector_options opt = {.kind = kind, .warp_model = model};
    memset(out, 0, sizeof *out);
    gr_detector *d = gr_detector_create(&t->geom, &opt, &err);
    bool ok = d != NULL;
    for (size_t i = 0; ok && i < t->n; i++) ok = gr_detector_feed(d, &t->ev[i], &err);
    if (!ok) {
        gr_error_print(&err, stderr);
        gr_error_clear(&err);
        gr_detector_destroy(d);
        return false;
    }
    const gr_race_set *rs = gr_detector_races(d);
    gr_detector_stats st = gr_detector_get_stats(d);
    out->signatures = rs->count;
    out->races = rs->total;
    out->undecided = st.undecided;
    for (size_t i = 0; i < rs->count; i++) out->flags_any |= rs->races[i].flags;
    if (rs->count) out->first = rs->races[0];
    gr_detector_destroy(d);
    return true;
}
