/* Exhaustive differential check of the shadow FSM against happens-before.
 *
 * Bound (EXHAUSTIVE_TOTAL, set by CMake): 3 threads placed in 4 ways (one warp; two warps of one
 * block; two blocks; two blocks with one thread per warp); per-thread programs over 13
 * operations (read, write, atomic add of block or device scope, each on 2 addresses;
 * bar.sync 0; bar.arrive 0; __syncwarp; fence of block or device scope); every program triple
 * with at most EXHAUSTIVE_TOTAL operations in all (at most 5 per thread); every interleaving the
 * barrier and warp-sync semantics allow, up to reordering of independent steps.
 *
 * Partial-order reduction: two steps of different threads are independent when both are
 * accesses to different addresses, both plain reads, or a fence and a plain access; sync
 * operations and a thread's last step (its exit) depend on everything. Interleavings that differ
 * only by swapping adjacent independent steps have the same happens-before relation, so a
 * depth-first search with sleep sets runs at least one interleaving per equivalence class
 * (Mazurkiewicz trace). With EXHAUSTIVE_POR=0 every interleaving runs (the sanitized variant,
 * at a smaller bound, checks that the reduction loses nothing on the FSM side either).
 * Symmetric programs (threads of one warp swapped, addresses renamed) are pruned, and so are
 * programs whose happens-before verdict a smaller program already gives (useful_program()).
 *
 * Per trace: when the FSM decided every access, the accesses it reports as racing with an
 * earlier one are exactly those HB reports; always, every access the FSM reports HB reports too,
 * and with a kind HB gives it (HB reports every partner, the FSM one). And where the FSM reported
 * a race or left an access undecided, HB keeping histories only for the granules the FSM
 * flagged (what confirms a simulator launch) reports exactly what HB tracking everything
 * reports: the same racing accesses with the same kinds. Then random traces with more
 * threads. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oracle/detector.h"

#ifndef EXHAUSTIVE_TOTAL
#define EXHAUSTIVE_TOTAL 4
#endif
#ifndef EXHAUSTIVE_POR
#define EXHAUSTIVE_POR 1
#endif
#define MAX_PER_THREAD 5
#define MAXT 16
#define MAXEV 256

enum {
    S_R0, S_W0, S_AC0, S_AG0, S_R1, S_W1, S_AC1, S_AG1, /* accesses: kind = op % 4, address = op / 4 */
    S_BAR, S_ARRIVE, S_WSYNC, S_FC, S_FG, NSYM
};

typedef struct config {
    const char *name;
    uint32_t blocks, tpb, ws;
    uint32_t nthreads;       /* involved threads */
    uint32_t thread[MAXT];   /* their linear ids */
    uint32_t idle[4], nidle; /* threads that exit at once */
} config;

/* What one detector said about one trace: which accesses (by instruction id, < 32) race with
 * an earlier one, and with which kinds. */
typedef struct verdict {
    uint32_t racy;
    uint8_t kinds[32];   /* bit per gr_race_kind */
    uint8_t inexact[32]; /* kinds reported with GR_RACE_KIND_INEXACT */
} verdict;

typedef struct checker {
    const config *cfg;
    gr_detector *hb, *fsm;
    verdict hb_v, fsm_v;
    gr_detector *confirm;   /* HB over the granules the FSM flagged */
    verdict confirm_v;
    gr_granule_set flagged; /* filled by the FSM's run of each trace */
    uint64_t confirmed, confirm_mismatch;
    uint64_t traces, decided, racy, mismatch, kind_mismatch, unsound, deadlocks, programs;
    uint64_t inexact; /* traces where the FSM flagged a kind as inexact */
    gr_event ev[MAXEV];
    size_t nev;
    int prog[MAXT][MAX_PER_THREAD + 1];
    int len[MAXT];
    bool por;
} checker;

static void on_race(void *user, const gr_race *r) {
    verdict *v = user;
    uint32_t i = r->second_instr & 31u;
    v->racy |= 1u << i;
    if (r->flags & GR_RACE_KIND_INEXACT) v->inexact[i] |= (uint8_t)(1u << r->kind);
    else v->kinds[i] |= (uint8_t)(1u << r->kind);
}

static void push(checker *c, gr_event e) {
    if (c->nev < MAXEV) c->ev[c->nev++] = e;
}

static void push_warp_sync(checker *c, uint32_t block, uint32_t warp, uint32_t mask) {
    gr_event e = {.type = GR_EV_WARP_SYNC};
    e.u.warp.block = block;
    e.u.warp.warp = warp;
    e.u.warp.mask = mask;
    push(c, e);
}

static bool run_one(checker *c, gr_detector *d, verdict *v, uint64_t *undecided) {
    gr_error err = GR_ERROR_INIT;
    memset(v, 0, sizeof *v);
    uint64_t before = gr_detector_get_stats(d).undecided;
    bool ok = true;
    for (size_t i = 0; ok && i < c->nev; i++) ok = gr_detector_feed(d, &c->ev[i], &err);
    gr_event end = {.type = GR_EV_KERNEL_END};
    ok = ok && gr_detector_feed(d, &end, &err);
    if (!ok) {
        gr_error_print(&err, stderr);
        gr_error_clear(&err);
    }
    *undecided = gr_detector_get_stats(d).undecided - before;
    return ok;
}

static void print_trace(const checker *c) {
    for (size_t i = 0; i < c->nev; i++) {
        const gr_event *e = &c->ev[i];
        switch (e->type) {
        case GR_EV_ACCESS:
            fprintf(stderr, "  t%u %s a%llu%s\n", e->u.access.thread,
                    e->u.access.kind == GR_ACCESS_READ ? "R" : e->u.access.kind == GR_ACCESS_WRITE ? "W" : "ATOM",
                    (unsigned long long)e->u.access.addr / 4,
                    e->u.access.kind == GR_ACCESS_ATOMIC ? (e->u.access.scope ? ".gpu" : ".cta") : "");
            break;
        case GR_EV_BARRIER_ARRIVE:
            fprintf(stderr, "  t%u %s\n", e->u.arrive.thread, e->u.arrive.waits ? "bar.sync" : "bar.arrive");
            break;
        case GR_EV_BARRIER_COMPLETE: fprintf(stderr, "  block%u bar complete\n", e->u.complete.block); break;
        case GR_EV_WARP_SYNC: fprintf(stderr, "  b%u w%u syncwarp %x\n", e->u.warp.block, e->u.warp.warp, e->u.warp.mask); break;
        case GR_EV_FENCE: fprintf(stderr, "  t%u fence.%s\n", e->u.fence.thread, e->u.fence.scope ? "gpu" : "cta"); break;
        case GR_EV_THREAD_EXIT: fprintf(stderr, "  t%u exit\n", e->u.exit.thread); break;
        default: fprintf(stderr, "  event %u\n", e->type);
        }
    }
}

/* Whether HB over the FSM's flagged granules gives HB's verdict (racing accesses and kinds).
 * When every granule the trace touches is flagged, both runs are the same: not counted. */
static bool confirmation_agrees(checker *c) {
    bool partial = false;
    for (size_t i = 0; i < c->nev && !partial; i++) {
        const gr_access *a = &c->ev[i].u.access;
        partial = c->ev[i].type == GR_EV_ACCESS &&
                  !gr_granule_set_has(&c->flagged, a->space, 0, a->addr);
    }
    if (!partial) return true;
    uint64_t und = 0;
    cr_assert(run_one(c, c->confirm, &c->confirm_v, &und));
    c->confirmed++;
    if (c->confirm_v.racy != c->hb_v.racy) return false;
    for (uint32_t i = 0; i < 32; i++)
        if (c->confirm_v.kinds[i] != c->hb_v.kinds[i]) return false;
    return true;
}

static void check_trace(checker *c) {
    uint64_t und_hb = 0, und_fsm = 0;
    cr_assert(run_one(c, c->hb, &c->hb_v, &und_hb));
    gr_granule_set_clear(&c->flagged);
    cr_assert(run_one(c, c->fsm, &c->fsm_v, &und_fsm));
    const verdict *hb = &c->hb_v, *fsm = &c->fsm_v;
    c->traces++;
    if (hb->racy) c->racy++;
    const char *bad = NULL;
    if (fsm->racy & ~hb->racy) {
        c->unsound++;
        bad = "FSM reported a racing access HB does not";
    }
    bool kinds_ok = true;
    for (uint32_t i = 0; i < 32; i++) kinds_ok &= (fsm->kinds[i] & ~hb->kinds[i]) == 0;
    bool inexact = false;
    for (uint32_t i = 0; i < 32; i++) inexact |= fsm->inexact[i] != 0;
    c->inexact += inexact;
    if (!kinds_ok) {
        c->kind_mismatch++;
        bad = "the FSM's race kind for an access is not one HB reports for it";
    }
    if (und_fsm == 0) {
        c->decided++;
        if (fsm->racy != hb->racy) {
            c->mismatch++;
            bad = "racing accesses differ on a decided trace";
        }
    }
    if ((fsm->racy || und_fsm) && !confirmation_agrees(c)) {
        c->confirm_mismatch++;
        bad = "HB over the granules the FSM flagged differs from HB over everything";
        fprintf(stderr, "  confirmation: racing instructions %08x\n", c->confirm_v.racy);
    }
    if (bad && (c->unsound + c->mismatch + c->kind_mismatch + c->confirm_mismatch <= 3 ||
                getenv("ALLBAD"))) {
        fprintf(stderr, "%s: %s: racing instructions FSM %08x, HB %08x, FSM undecided %llu\n",
                c->cfg->name, bad, fsm->racy, hb->racy, (unsigned long long)und_fsm);
        for (uint32_t i = 0; i < 32; i++)
            if (fsm->kinds[i] | fsm->inexact[i] | hb->kinds[i])
                fprintf(stderr, "  instr %u: kinds FSM %x (inexact %x) HB %x\n", i, fsm->kinds[i],
                        fsm->inexact[i], hb->kinds[i]);
        print_trace(c);
    }
}

static gr_event access_ev(uint32_t t, int sym, uint32_t instr) {
    gr_event e = {.type = GR_EV_ACCESS};
    int a = sym / 4, k = sym % 4;
    e.u.access = (gr_access){.addr = 4u * (uint32_t)a, .thread = t, .instr = instr,
                             .space = GR_SPACE_GLOBAL, .size = 4};
    if (k == 0) e.u.access.kind = GR_ACCESS_READ;
    else if (k == 1) e.u.access.kind = GR_ACCESS_WRITE;
    else {
        e.u.access.kind = GR_ACCESS_ATOMIC;
        e.u.access.op = GR_ATOM_ADD;
        e.u.access.scope = k == 2 ? GR_SCOPE_CTA : GR_SCOPE_GPU;
    }
    return e;
}

/* Scheduler state for the interleaving search. */
typedef struct sched {
    int pc[MAXT];
    int wait[MAXT];     /* 0 running, S_BAR or S_WSYNC */
    int arrived[MAXT];  /* arrived at the pending instance of barrier 0 */
    int done[MAXT];
} sched;

static uint32_t block_of(const config *g, uint32_t i) { return g->thread[i] / g->tpb; }
static uint32_t warp_of(const config *g, uint32_t i) { return (g->thread[i] % g->tpb) / g->ws; }

static void complete_syncs(checker *c, sched *s) {
    const config *g = c->cfg;
    bool again = true;
    while (again) {
        again = false;
        /* Barrier 0 completes when every live thread of the block arrived (bar.sync waits,
         * bar.arrive goes on). */
        for (uint32_t b = 0; b < g->blocks; b++) {
            bool any = false, all = true;
            for (uint32_t i = 0; i < g->nthreads; i++) {
                if (block_of(g, i) != b) continue;
                if (s->arrived[i]) any = true;
                else if (!s->done[i]) all = false;
            }
            if (any && all) {
                gr_event e = {.type = GR_EV_BARRIER_COMPLETE};
                e.u.complete.block = b;
                push(c, e);
                for (uint32_t i = 0; i < g->nthreads; i++)
                    if (block_of(g, i) == b) {
                        s->arrived[i] = 0;
                        if (s->wait[i] == S_BAR) s->wait[i] = 0;
                    }
                again = true;
            }
        }
        for (uint32_t i = 0; i < g->nthreads; i++) {
            if (s->done[i] || s->wait[i] != S_WSYNC) continue;
            uint32_t b = block_of(g, i), w = warp_of(g, i);
            bool all = true;
            uint32_t mask = 0;
            for (uint32_t j = 0; j < g->nthreads; j++) {
                if (block_of(g, j) != b || warp_of(g, j) != w || s->done[j]) continue;
                if (s->wait[j] != S_WSYNC) all = false;
                mask |= 1u << ((g->thread[j] % g->tpb) % g->ws);
            }
            if (!all) continue;
            push_warp_sync(c, b, w, mask);
            for (uint32_t j = 0; j < g->nthreads; j++)
                if (block_of(g, j) == b && warp_of(g, j) == w && !s->done[j]) s->wait[j] = 0;
            again = true;
        }
    }
}

static void exit_thread(checker *c, sched *s, uint32_t i) {
    gr_event e = {.type = GR_EV_THREAD_EXIT};
    e.u.exit.thread = c->cfg->thread[i];
    push(c, e);
    s->done[i] = 1;
}

static void step_thread(checker *c, sched *s, uint32_t i) {
    const config *g = c->cfg;
    uint32_t t = g->thread[i];
    int sym = c->prog[i][s->pc[i]++];
    if (sym <= S_AG1) {
        push(c, access_ev(t, sym, (uint32_t)(i * 8 + s->pc[i])));
    } else if (sym == S_BAR || sym == S_ARRIVE) {
        gr_event e = {.type = GR_EV_BARRIER_ARRIVE};
        e.u.arrive.thread = t;
        e.u.arrive.waits = sym == S_BAR;
        push(c, e);
        s->arrived[i] = 1;
        if (sym == S_BAR) s->wait[i] = S_BAR;
    } else if (sym == S_WSYNC) {
        s->wait[i] = S_WSYNC;
    } else {
        gr_event e = {.type = GR_EV_FENCE};
        e.u.fence.thread = t;
        e.u.fence.scope = sym == S_FC ? GR_SCOPE_CTA : GR_SCOPE_GPU;
        e.u.fence.sem = GR_SEM_SC;
        push(c, e);
    }
    if (s->pc[i] == c->len[i] && !s->wait[i]) exit_thread(c, s, i);
    complete_syncs(c, s);
    /* A thread released from a wait at the end of its program exits now. */
    for (uint32_t j = 0; j < g->nthreads; j++)
        if (!s->done[j] && !s->wait[j] && s->pc[j] == c->len[j]) {
            exit_thread(c, s, j);
            complete_syncs(c, s);
            j = (uint32_t)-1; /* an exit may release others: look again from the start */
        }
}

/* A thread can take its next step: not waiting, and not arriving twice at one instance. */
static bool enabled(const checker *c, const sched *s, uint32_t i) {
    if (s->done[i] || s->wait[i]) return false;
    int sym = c->prog[i][s->pc[i]];
    return !(s->arrived[i] && (sym == S_BAR || sym == S_ARRIVE));
}

/* Whether the next steps of threads i and j commute (see the header comment). A thread's last
 * step also exits it, which may complete a barrier or warp sync others wait at. */
static bool independent(const checker *c, const sched *s, uint32_t i, uint32_t j) {
    int x = c->prog[i][s->pc[i]], y = c->prog[j][s->pc[j]];
    if (s->pc[i] + 1 == c->len[i] || s->pc[j] + 1 == c->len[j])
        for (uint32_t k = 0; k < c->cfg->nthreads; k++)
            if (!s->done[k] && (s->wait[k] || s->arrived[k])) return false;
    bool xa = x <= S_AG1, ya = y <= S_AG1;
    if (xa && ya) return x / 4 != y / 4 || (x % 4 == 0 && y % 4 == 0);
    bool xf = x == S_FC || x == S_FG, yf = y == S_FC || y == S_FG;
    bool xplain = xa && x % 4 < 2, yplain = ya && y % 4 < 2;
    return (xf && yplain) || (yf && xplain);
}

static void interleave(checker *c, sched *s, uint32_t sleep) {
    const config *g = c->cfg;
    bool any = false, all_done = true;
    uint32_t explored = 0;
    for (uint32_t i = 0; i < g->nthreads; i++) {
        if (!s->done[i]) all_done = false;
        if (!enabled(c, s, i)) continue;
        any = true;
        if (sleep >> i & 1u) continue;
        /* Threads asleep (or explored before i at this node) whose step commutes with i's
         * stay asleep below: their step comes first in an equivalent run already explored. */
        uint32_t child_sleep = 0;
        if (c->por)
            for (uint32_t j = 0; j < g->nthreads; j++)
                if (((sleep | explored) >> j & 1u) && independent(c, s, i, j)) child_sleep |= 1u << j;
        size_t mark = c->nev;
        sched saved = *s;
        step_thread(c, s, i);
        interleave(c, s, child_sleep);
        *s = saved;
        c->nev = mark;
        explored |= 1u << i;
    }
    if (all_done) check_trace(c);
    else if (!any) c->deadlocks++;
}

static void start_interleavings(checker *c) {
    sched s;
    memset(&s, 0, sizeof s);
    c->nev = 0;
    c->programs++;
    for (uint32_t i = 0; i < c->cfg->nidle; i++) {
        gr_event e = {.type = GR_EV_THREAD_EXIT};
        e.u.exit.thread = c->cfg->idle[i];
        push(c, e);
    }
    for (uint32_t i = 0; i < c->cfg->nthreads; i++)
        if (c->len[i] == 0) exit_thread(c, &s, i);
    interleave(c, &s, 0);
}

/* Two threads are interchangeable when they share block and warp. */
static bool symmetric(const config *g, uint32_t i, uint32_t j) {
    return block_of(g, i) == block_of(g, j) && warp_of(g, i) == warp_of(g, j);
}

static long prog_code(const checker *c, uint32_t i) {
    long code = c->len[i];
    for (int k = 0; k < c->len[i]; k++) code = code * NSYM + c->prog[i][k];
    return code;
}

static bool is_fence(int op) { return op == S_FC || op == S_FG; }

/* Operations that give the same happens-before verdict as a shorter or smaller program are left
 * out: a fence first or last in a thread or next to another fence (it orders nothing more);
 * device scope inside one block (the same as block scope there); __syncwarp with one-lane
 * warps (a no-op). */
static bool useful_op(const config *g, int op) {
    if (g->blocks == 1 && (op == S_AG0 || op == S_AG1 || op == S_FG)) return false;
    if (g->ws == 1 && op == S_WSYNC) return false;
    return true;
}

static bool useful_program(const checker *c, uint32_t i) {
    const int *p = c->prog[i];
    int n = c->len[i];
    for (int k = 0; k < n; k++) {
        if (!useful_op(c->cfg, p[k])) return false;
        if (is_fence(p[k]) && (k == 0 || k == n - 1 || is_fence(p[k - 1]))) return false;
    }
    return true;
}

static bool canonical(const checker *c) {
    const config *g = c->cfg;
    for (uint32_t i = 0; i + 1 < g->nthreads; i++)
        for (uint32_t j = i + 1; j < g->nthreads; j++)
            if (symmetric(g, i, j) && prog_code(c, i) > prog_code(c, j)) return false;
    /* Address renaming: the first address used is address 0. */
    for (uint32_t i = 0; i < g->nthreads; i++)
        for (int k = 0; k < c->len[i]; k++)
            if (c->prog[i][k] <= S_AG1) return c->prog[i][k] < S_R1;
    return true;
}

static void enumerate_programs(checker *c, uint32_t i, int budget) {
    if (i == c->cfg->nthreads) {
        if (canonical(c)) start_interleavings(c);
        return;
    }
    /* Fill thread i with every program of length 0..min(budget, MAX_PER_THREAD). */
    int maxlen = budget < MAX_PER_THREAD ? budget : MAX_PER_THREAD;
    for (int len = 0; len <= maxlen; len++) {
        c->len[i] = len;
        int idx[MAX_PER_THREAD] = {0};
        for (;;) {
            for (int k = 0; k < len; k++) c->prog[i][k] = idx[k];
            if (useful_program(c, i)) enumerate_programs(c, i + 1, budget - len);
            int k = 0;
            while (k < len && ++idx[k] == NSYM) idx[k++] = 0;
            if (k == len) break;
        }
    }
}

static void make_detectors(checker *c, const config *g) {
    gr_error err = GR_ERROR_INIT;
    gr_launch_geometry geom = {{g->blocks, 1, 1}, {g->tpb, 1, 1}, g->ws};
    gr_detector_options hb = {.kind = GR_DETECTOR_HB, .on_race = on_race, .user = &c->hb_v};
    gr_detector_options fsm = {.kind = GR_DETECTOR_FSM, .on_race = on_race, .user = &c->fsm_v,
                               .flagged = &c->flagged};
    gr_detector_options confirm = {.kind = GR_DETECTOR_HB, .on_race = on_race,
                                   .user = &c->confirm_v, .track_only = &c->flagged};
    c->cfg = g;
    c->hb = gr_detector_create(&geom, &hb, &err);
    c->fsm = gr_detector_create(&geom, &fsm, &err);
    c->confirm = gr_detector_create(&geom, &confirm, &err);
    cr_assert(c->hb && c->fsm && c->confirm);
}

/* Checks the confirmation count, then frees the detectors. */
static void finish_checker(checker *c, const char *name) {
    printf("  [%s] %llu traces confirmed by HB over the FSM's flagged granules (a part of those "
           "accessed), %llu differ from HB over everything\n",
           name, (unsigned long long)c->confirmed, (unsigned long long)c->confirm_mismatch);
    cr_expect_gt(c->confirmed, 0, "[%s] no trace needed a confirmation", name);
    cr_expect_eq(c->confirm_mismatch, 0,
                 "[%s] HB over the FSM's flagged granules differs from HB over everything", name);
    gr_detector_destroy(c->hb);
    gr_detector_destroy(c->fsm);
    gr_detector_destroy(c->confirm);
    gr_granule_set_free(&c->flagged);
}

static const config configs[] = {
    {"one warp", 1, 3, 4, 3, {0, 1, 2}, {0}, 0},
    {"two warps", 1, 3, 2, 3, {0, 1, 2}, {0}, 0},
    {"two blocks", 2, 2, 2, 3, {0, 1, 2}, {3}, 1},
    {"two blocks, warp per thread", 2, 2, 1, 3, {0, 1, 2}, {3}, 1},
};

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

Test(exhaustive, fsm_agrees_with_hb, .timeout = 300) {
    static checker c;
    uint64_t traces = 0, decided = 0, racy = 0, programs = 0;
    double t0 = seconds();
    clock_t cpu0 = clock();
    for (size_t k = 0; k < sizeof configs / sizeof configs[0]; k++) {
        memset(&c, 0, sizeof c);
        c.por = EXHAUSTIVE_POR;
        make_detectors(&c, &configs[k]);
        enumerate_programs(&c, 0, EXHAUSTIVE_TOTAL);
        printf("exhaustive [%s]: %llu programs, %llu traces, %llu decided by the FSM, %llu racy (HB), "
               "%llu access mismatches, %llu kind mismatches (%llu traces with a kind flagged "
               "inexact), %llu unsound FSM reports, %llu deadlocked schedules\n",
               configs[k].name, (unsigned long long)c.programs, (unsigned long long)c.traces,
               (unsigned long long)c.decided, (unsigned long long)c.racy,
               (unsigned long long)c.mismatch, (unsigned long long)c.kind_mismatch,
               (unsigned long long)c.inexact, (unsigned long long)c.unsound,
               (unsigned long long)c.deadlocks);
        cr_expect_eq(c.mismatch, 0, "[%s] FSM and HB disagree on racing accesses of decided traces",
                     configs[k].name);
        cr_expect_eq(c.kind_mismatch, 0, "[%s] FSM race kinds HB does not report", configs[k].name);
        cr_expect_eq(c.unsound, 0, "[%s] FSM reported a race HB does not", configs[k].name);
        traces += c.traces;
        decided += c.decided;
        racy += c.racy;
        programs += c.programs;
        finish_checker(&c, configs[k].name);
    }
    printf("exhaustive bound: 3 threads in 4 placements, programs over %d operations, at most %d "
           "per thread and %d in all, %s; %llu programs, %llu traces, %llu decided by the FSM, "
           "%llu racy; %.1f s (%.1f s of CPU)\n",
           NSYM, MAX_PER_THREAD < EXHAUSTIVE_TOTAL ? MAX_PER_THREAD : EXHAUSTIVE_TOTAL,
           EXHAUSTIVE_TOTAL,
           EXHAUSTIVE_POR ? "one interleaving per equivalence class of independent-step "
                            "reorderings (sleep sets)"
                          : "every interleaving",
           (unsigned long long)programs, (unsigned long long)traces, (unsigned long long)decided,
           (unsigned long long)racy, seconds() - t0, (double)(clock() - cpu0) / CLOCKS_PER_SEC);
    fflush(stdout);
    cr_expect_gt(decided, traces / 2, "the FSM should decide most small traces");
}

/* Random traces: 12 threads in 2 blocks of 2 warps, random programs and schedules; half the runs
 * barrier-structured. */
static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

Test(exhaustive, random_traces_more_threads, .timeout = 120) {
    static checker c;
    static config g = {"random", 2, 6, 3, 12, {0}, {0}, 0};
    for (uint32_t i = 0; i < 12; i++) g.thread[i] = i;
    memset(&c, 0, sizeof c);
    make_detectors(&c, &g);
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    for (int run = 0; run < 3000; run++) {
        bool aligned = run % 2; /* half the runs: barrier-structured programs */
        int aligned_len = (int)(rng_next(&seed) % (MAX_PER_THREAD + 1));
        for (uint32_t i = 0; i < 12; i++) {
            c.len[i] = aligned ? aligned_len : (int)(rng_next(&seed) % (MAX_PER_THREAD + 1));
            /* Barrier-structured runs: every thread alternates an access and bar.sync, so all
             * threads of a block meet the same barriers and the FSM has more to decide. */
            static const int accesses[] = {S_R0, S_R1, S_W0, S_W1, S_AG0, S_AG1};
            for (int k = 0; k < c.len[i]; k++) {
                uint64_t x = rng_next(&seed);
                if (!aligned) c.prog[i][k] = (int)(x % NSYM);
                else c.prog[i][k] = k % 2 ? S_BAR : accesses[x % 6];
            }
        }
        sched s;
        memset(&s, 0, sizeof s);
        c.nev = 0;
        for (uint32_t i = 0; i < 12; i++)
            if (c.len[i] == 0) exit_thread(&c, &s, i);
        complete_syncs(&c, &s);
        for (;;) {
            uint32_t runnable[12], n = 0;
            bool all_done = true;
            for (uint32_t i = 0; i < 12; i++) {
                if (!s.done[i]) all_done = false;
                if (enabled(&c, &s, i)) runnable[n++] = i;
            }
            if (all_done || n == 0) {
                if (all_done) check_trace(&c);
                else c.deadlocks++;
                break;
            }
            step_thread(&c, &s, runnable[rng_next(&seed) % n]);
        }
    }
    printf("random (12 threads, 2 blocks, 4 warps): %llu traces, %llu decided, %llu racy, "
           "%llu access mismatches, %llu kind mismatches, %llu unsound\n",
           (unsigned long long)c.traces, (unsigned long long)c.decided, (unsigned long long)c.racy,
           (unsigned long long)c.mismatch, (unsigned long long)c.kind_mismatch,
           (unsigned long long)c.unsound);
    cr_expect_eq(c.mismatch, 0);
    cr_expect_eq(c.kind_mismatch, 0);
    cr_expect_eq(c.unsound, 0);
    finish_checker(&c, "random");
}

/* Random traces with named barriers: ids 0 and 1, each instance for the whole block or for a
 * thread count (which may leave threads out), waiting or only arriving; __syncwarp of the whole
 * warp or of lane pairs; exits. At most 6 threads, so that accesses stay below 32 (verdicts are
 * bit masks of instruction ids). The exhaustive bound covers none of the counted instances. */
enum { N_READ, N_WRITE, N_SYNC, N_ARRIVE, N_WSYNC, N_WSYNC_PAIR };
typedef struct named_op {
    int kind, addr, id, count; /* addr 0..2 shared words, 3 a global word; count 0: the block */
} named_op;
typedef struct named_sched {
    named_op prog[6][MAX_PER_THREAD];
    int len[6], pc[6], wait[6], done[6];
    int arrived[6][2];           /* at the pending instance of barrier id */
    int count[2][2], expect[2][2]; /* per block and id: arrivals, and the instance's count */
    uint32_t next_instr;
} named_sched;

static void named_exit(checker *c, named_sched *s, uint32_t t) {
    gr_event e = {.type = GR_EV_THREAD_EXIT};
    e.u.exit.thread = t;
    push(c, e);
    s->done[t] = 1;
}

/* Completes every instance whose count is reached (the whole block: every live thread
 * arrived) and every warp sync whose live lanes all wait; repeats while something completed. */
static void named_complete(checker *c, named_sched *s) {
    const config *g = c->cfg;
    for (bool again = true; again;) {
        again = false;
        for (uint32_t b = 0; b < g->blocks; b++)
            for (int id = 0; id < 2; id++) {
                if (!s->count[b][id]) continue;
                bool full = s->count[b][id] >= s->expect[b][id];
                if (!s->expect[b][id])
                    for (uint32_t t = b * g->tpb; t < (b + 1) * g->tpb; t++)
                        full &= s->done[t] || s->arrived[t][id];
                if (!full) continue;
                gr_event e = {.type = GR_EV_BARRIER_COMPLETE};
                e.u.complete.block = b;
                e.u.complete.barrier = (uint32_t)id;
                push(c, e);
                for (uint32_t t = b * g->tpb; t < (b + 1) * g->tpb; t++) {
                    s->arrived[t][id] = 0;
                    if (s->wait[t] == 10 + id) s->wait[t] = 0;
                }
                s->count[b][id] = 0;
                again = true;
            }
        for (uint32_t t = 0; t < g->nthreads; t++) {
            if (s->done[t] || (s->wait[t] != 1 && s->wait[t] != 2)) continue;
            uint32_t b = t / g->tpb, w = (t % g->tpb) / g->ws, lane = (t % g->tpb) % g->ws;
            uint32_t first = b * g->tpb + w * g->ws, mask = 0;
            bool all = true;
            for (uint32_t u = first; u < first + g->ws && u < (b + 1) * g->tpb; u++) {
                uint32_t ul = (u % g->tpb) % g->ws;
                if (s->done[u] || (s->wait[t] == 2 && ul / 2 != lane / 2)) continue;
                all &= s->wait[u] == s->wait[t];
                mask |= 1u << ul;
            }
            if (!all) continue;
            push_warp_sync(c, b, w, mask);
            for (uint32_t l = 0; l < g->ws; l++)
                if (mask >> l & 1u) s->wait[first + l] = 0;
            again = true;
        }
    }
}

static void named_step(checker *c, named_sched *s, uint32_t t) {
    const config *g = c->cfg;
    const named_op *o = &s->prog[t][s->pc[t]++];
    uint32_t b = t / g->tpb;
    if (o->kind == N_READ || o->kind == N_WRITE) {
        gr_event e = {.type = GR_EV_ACCESS};
        e.u.access = (gr_access){.addr = 4u * (uint32_t)(o->addr % 3), .thread = t,
                                 .instr = s->next_instr++,
                                 .space = o->addr == 3 ? GR_SPACE_GLOBAL : GR_SPACE_SHARED,
                                 .kind = o->kind == N_WRITE ? GR_ACCESS_WRITE : GR_ACCESS_READ,
                                 .size = 4};
        push(c, e);
    } else if (o->kind == N_SYNC || o->kind == N_ARRIVE) {
        if (!s->count[b][o->id]) s->expect[b][o->id] = o->count;
        gr_event e = {.type = GR_EV_BARRIER_ARRIVE};
        e.u.arrive.thread = t;
        e.u.arrive.barrier = (uint32_t)o->id;
        e.u.arrive.expected = (uint32_t)s->expect[b][o->id];
        e.u.arrive.waits = o->kind == N_SYNC;
        push(c, e);
        s->count[b][o->id]++;
        s->arrived[t][o->id] = 1;
        if (o->kind == N_SYNC) s->wait[t] = 10 + o->id;
    } else {
        s->wait[t] = o->kind == N_WSYNC ? 1 : 2;
    }
    if (s->pc[t] == s->len[t] && !s->wait[t]) named_exit(c, s, t);
    named_complete(c, s);
    for (uint32_t u = 0; u < g->nthreads; u++)
        if (!s->done[u] && !s->wait[u] && s->pc[u] == s->len[u]) {
            named_exit(c, s, u);
            named_complete(c, s);
            u = (uint32_t)-1; /* an exit may release others: look again from the start */
        }
}

Test(exhaustive, random_traces_named_barriers, .timeout = 120) {
    static const config shapes[] = {
        {"named: 4 threads, 2 warps", 1, 4, 2, 4, {0, 1, 2, 3}, {0}, 0},
        {"named: 6 threads, 3 warps", 1, 6, 2, 6, {0, 1, 2, 3, 4, 5}, {0}, 0},
        {"named: 6 threads, 2 warps of 3", 1, 6, 3, 6, {0, 1, 2, 3, 4, 5}, {0}, 0},
        {"named: 2 blocks of 3 threads", 2, 3, 2, 6, {0, 1, 2, 3, 4, 5}, {0}, 0},
    };
    uint64_t seed = 0x2545f4914f6cdd1dULL;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        static checker c;
        const config *g = &shapes[k];
        memset(&c, 0, sizeof c);
        make_detectors(&c, g);
        for (int run = 0; run < 150000; run++) {
            static named_sched s;
            memset(&s, 0, sizeof s);
            s.next_instr = 1;
            for (uint32_t t = 0; t < g->nthreads; t++) {
                s.len[t] = (int)(rng_next(&seed) % (MAX_PER_THREAD + 1));
                for (int i = 0; i < s.len[t]; i++) {
                    uint64_t x = rng_next(&seed);
                    int pick = (int)(x % 10), cnt = (int)((x >> 20) % 4);
                    s.prog[t][i] = (named_op){
                        .kind = pick < 3 ? N_READ : pick < 6 ? N_WRITE : pick < 8 ? N_SYNC
                                : pick < 9 ? N_ARRIVE : (x >> 8) % 2 ? N_WSYNC : N_WSYNC_PAIR,
                        .addr = (int)((x >> 12) % 4), .id = (int)((x >> 16) % 2),
                        .count = cnt == 0 ? 0 : cnt == 1 ? (int)g->ws : cnt == 2 ? (int)(2 * g->ws)
                                 : (int)((x >> 24) % g->tpb + 1)};
                }
            }
            c.nev = 0;
            for (uint32_t t = 0; t < g->nthreads; t++)
                if (!s.len[t]) named_exit(&c, &s, t);
            named_complete(&c, &s);
            for (;;) {
                uint32_t runnable[6], n = 0;
                bool all_done = true;
                for (uint32_t t = 0; t < g->nthreads; t++) {
                    all_done &= s.done[t] != 0;
                    if (s.done[t] || s.wait[t]) continue;
                    const named_op *o = &s.prog[t][s.pc[t]];
                    /* not twice at one pending instance */
                    if ((o->kind == N_SYNC || o->kind == N_ARRIVE) && s.arrived[t][o->id]) continue;
                    runnable[n++] = t;
                }
                if (all_done) check_trace(&c);
                else if (n == 0) c.deadlocks++;
                if (all_done || n == 0) break;
                named_step(&c, &s, runnable[rng_next(&seed) % n]);
            }
        }
        printf("random [%s]: %llu traces, %llu decided, %llu racy, %llu access mismatches, "
               "%llu kind mismatches, %llu unsound\n",
               g->name, (unsigned long long)c.traces, (unsigned long long)c.decided,
               (unsigned long long)c.racy, (unsigned long long)c.mismatch,
               (unsigned long long)c.kind_mismatch, (unsigned long long)c.unsound);
        cr_expect_gt(c.decided, 0);
        cr_expect_eq(c.mismatch, 0, "[%s]", g->name);
        cr_expect_eq(c.kind_mismatch, 0, "[%s]", g->name);
        cr_expect_eq(c.unsound, 0, "[%s]", g->name);
        finish_checker(&c, g->name);
    }
}
