/* test_hb_scoped.c — the happens-before detector's scoped-race diagnosis on hand-built traces:
 * a race between blocks is *scoped* exactly when widening the block-scope atomics and fences
 * to device scope would order it (locks and message passing of the wrong scope), and plain
 * otherwise, also in a launch that uses block scope elsewhere. */
#include <criterion/criterion.h>
#include <string.h>

#include "oracle/hb.h"

enum { MAX_RACES = 64, DATA = 0x80, LOCK = 0x10, OTHER = 0x400 };
enum { I_CAS = 1, I_DATA_READ = 10, I_DATA_WRITE = 11, I_EXCH = 20, I_OTHER = 30 };

typedef struct collected {
    gr_race r[MAX_RACES];
    int n;
} collected;

static void collect(void *user, const gr_race *race) {
    collected *c = user;
    if (c->n < MAX_RACES) c->r[c->n++] = *race;
}

typedef struct fixture {
    gr_hb *hb;
    collected races;
} fixture;

/* 2 blocks of 32 threads (one warp each), its model. */
static void open_hb(fixture *f) {
    memset(f, 0, sizeof *f);
    gr_launch_geometry g = {{2, 1, 1}, {32, 1, 1}, 32};
    gr_error err = GR_ERROR_INIT;
    f->hb = gr_hb_create(&g, false, collect, &f->races, &err);
    cr_assert(f->hb, "gr_hb_create: %s", err.message ? err.message : "");
}

static void feed(fixture *f, const gr_event *ev) {
    gr_error err = GR_ERROR_INIT;
    bool ok = gr_hb_event(f->hb, ev, &err);
    cr_assert(ok, "gr_hb_event: %s", err.message ? err.message : "");
}

static void mem(fixture *f, uint32_t thread, uint64_t addr, uint8_t kind, uint8_t op,
                   uint8_t scope, uint32_t instr) {
    gr_event ev = {.type = GR_EV_ACCESS};
    ev.u.access = (gr_access){.addr = addr, .thread = thread, .instr = instr,
                              .space = GR_SPACE_GLOBAL, .kind = kind, .size = 4, .op = op,
                              .scope = scope, .sem = GR_SEM_RELAXED};
    feed(f, &ev);
}

static void fence(fixture *f, uint32_t thread, uint8_t scope) {
    gr_event ev = {.type = GR_EV_FENCE};
    ev.u.fence.thread = thread;
    ev.u.fence.scope = scope;
    ev.u.fence.sem = GR_SEM_SC;
    feed(f, &ev);
}

static void kernel_end(fixture *f) {
    gr_event ev = {.type = GR_EV_KERNEL_END};
    feed(f, &ev);
}

/* Threads a then b take a spin lock (CAS; fence), update DATA, release it (fence; exch):
 * the lock word's atomics have `atomic_scope`, the fences `fence_scope` (-1: no fences). */
static void lock_pattern(fixture *f, uint32_t a, uint32_t b, uint8_t atomic_scope, int fence_scope) {
    uint32_t who[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        uint32_t t = who[i];
        mem(f, t, LOCK, GR_ACCESS_ATOMIC, GR_ATOM_CAS, atomic_scope, I_CAS);
        if (fence_scope >= 0) fence(f, t, (uint8_t)fence_scope);
        mem(f, t, DATA, GR_ACCESS_READ, 0, 0, I_DATA_READ);
        mem(f, t, DATA, GR_ACCESS_WRITE, 0, 0, I_DATA_WRITE);
        if (fence_scope >= 0) fence(f, t, (uint8_t)fence_scope);
        mem(f, t, LOCK, GR_ACCESS_ATOMIC, GR_ATOM_EXCH, atomic_scope, I_EXCH);
    }
}

/* The races whose accesses are both plain accesses of DATA. */
static int data_races(const fixture *f, int *scoped, int *scope_atomic_cause) {
    int n = 0;
    *scoped = *scope_atomic_cause = 0;
    for (int i = 0; i < f->races.n; i++) {
        const gr_race *r = &f->races.r[i];
        if (r->addr < DATA || r->addr >= DATA + 4) continue;
        n++;
        *scoped += (r->flags & GR_RACE_SCOPED) != 0;
        *scope_atomic_cause += r->cause == GR_CAUSE_SCOPE_ATOMIC;
    }
    return n;
}

Test(hb_scoped, block_scope_lock_with_device_fences_across_blocks_is_scoped) {
    fixture f;
    open_hb(&f);
    lock_pattern(&f, 0, 32, GR_SCOPE_CTA, GR_SCOPE_GPU);
    int scoped, cause;
    int n = data_races(&f, &scoped, &cause);
    cr_expect_gt(n, 0, "the critical sections of two blocks race");
    cr_expect_eq(scoped, n, "%d of %d data races flagged scoped", scoped, n);
    cr_expect_eq(cause, n, "the diagnosis names the block-scope atomics of the lock");
    for (int i = 0; i < f.races.n; i++)
        if (f.races.r[i].addr == LOCK)
            cr_expect(f.races.r[i].flags & GR_RACE_SCOPED, "the lock word's atomics: scoped too");
    gr_hb_destroy(f.hb);
}

Test(hb_scoped, device_scope_lock_across_blocks_is_race_free) {
    fixture f;
    open_hb(&f);
    lock_pattern(&f, 0, 32, GR_SCOPE_GPU, GR_SCOPE_GPU);
    cr_expect_eq(f.races.n, 0);
    gr_hb_destroy(f.hb);
}

Test(hb_scoped, block_scope_lock_within_a_block_is_race_free) {
    fixture f;
    open_hb(&f);
    lock_pattern(&f, 0, 1, GR_SCOPE_CTA, GR_SCOPE_GPU);
    cr_expect_eq(f.races.n, 0);
    gr_hb_destroy(f.hb);
}

Test(hb_scoped, block_scope_lock_without_fences_is_a_plain_race) {
    /* Relaxed atomics order nothing: device scope would not order the data either. */
    fixture f;
    open_hb(&f);
    lock_pattern(&f, 0, 32, GR_SCOPE_CTA, -1);
    int scoped, cause;
    int n = data_races(&f, &scoped, &cause);
    cr_expect_gt(n, 0);
    cr_expect_eq(scoped, 0, "no fences: the data race is not a scope problem");
    gr_hb_destroy(f.hb);
}

Test(hb_scoped, unsynchronized_race_next_to_a_block_scope_lock_stays_plain) {
    fixture f;
    open_hb(&f);
    lock_pattern(&f, 0, 32, GR_SCOPE_CTA, GR_SCOPE_GPU);
    /* thread 33 writes what thread 0 wrote, without taking any lock */
    mem(&f, 0, OTHER, GR_ACCESS_WRITE, 0, 0, I_OTHER);
    mem(&f, 33, OTHER, GR_ACCESS_WRITE, 0, 0, I_OTHER + 1);
    int found = 0;
    for (int i = 0; i < f.races.n; i++) {
        const gr_race *r = &f.races.r[i];
        if (r->addr != OTHER) continue;
        found++;
        cr_expect_eq(r->flags & GR_RACE_SCOPED, 0);
        cr_expect_eq(r->cause, GR_CAUSE_NO_SYNC_BLOCKS);
    }
    cr_expect_eq(found, 1);
    gr_hb_destroy(f.hb);
}

Test(hb_scoped, block_fence_message_passing_keeps_the_fence_diagnosis) {
    fixture f;
    open_hb(&f);
    mem(&f, 0, DATA, GR_ACCESS_WRITE, 0, 0, I_DATA_WRITE);
    fence(&f, 0, GR_SCOPE_CTA);
    mem(&f, 0, LOCK, GR_ACCESS_ATOMIC, GR_ATOM_EXCH, GR_SCOPE_GPU, I_EXCH);
    mem(&f, 32, LOCK, GR_ACCESS_ATOMIC, GR_ATOM_LD, GR_SCOPE_GPU, I_CAS);
    fence(&f, 32, GR_SCOPE_CTA);
    mem(&f, 32, DATA, GR_ACCESS_READ, 0, 0, I_DATA_READ);
    cr_assert_eq(f.races.n, 1);
    cr_expect(f.races.r[0].flags & GR_RACE_SCOPED);
    cr_expect_eq(f.races.r[0].cause, GR_CAUSE_SCOPE_FENCE);
    gr_hb_destroy(f.hb);
}

Test(hb_scoped, every_launch_starts_the_widened_state_afresh) {
    fixture f;
    open_hb(&f);
    int scoped, cause;
    for (int launch = 0; launch < 2; launch++) {
        f.races.n = 0;
        lock_pattern(&f, launch ? 32 : 0, launch ? 0 : 32, GR_SCOPE_CTA, GR_SCOPE_GPU);
        int n = data_races(&f, &scoped, &cause);
        cr_expect_gt(n, 0, "launch %d", launch);
        cr_expect_eq(scoped, n, "launch %d: %d of %d data races scoped", launch, scoped, n);
        kernel_end(&f);
    }
    /* Next launch: the same critical sections with no lock at all, after a block-scope atomic
     * elsewhere (the widened state starts again, from this launch's state). */
    f.races.n = 0;
    mem(&f, 5, OTHER, GR_ACCESS_ATOMIC, GR_ATOM_ADD, GR_SCOPE_CTA, I_OTHER);
    for (uint32_t t = 0; t <= 32; t += 32) {
        mem(&f, t, DATA, GR_ACCESS_READ, 0, 0, I_DATA_READ);
        mem(&f, t, DATA, GR_ACCESS_WRITE, 0, 0, I_DATA_WRITE);
    }
    cr_expect_gt(data_races(&f, &scoped, &cause), 0);
    cr_expect_eq(scoped, 0, "nothing orders them at any scope: a plain race");
    gr_hb_destroy(f.hb);
}
