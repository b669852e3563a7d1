/* Exhaustive differential check of the shadow FSM against happens-before.
 *
 * Bound: 3 threads placed in 4 ways (one warp; two warps of one block; two blocks; two blocks
 * with one thread per warp), per-thread programs over 12 operations (read, write, atomic add
 * of block or device scope on 2 addresses, barrier, __syncwarp, fence of block or device scope),
 * every program triple up to TOTAL_EVENTS operations in all (at most 5 per thread), every
 * interleaving the barrier and warp-sync semantics allow. Symmetric threads and address
 * renamings are pruned. For each trace: when the FSM decided every access, its racy addresses
 * equal HB's; always, every address the FSM calls racy HB calls racy too. Then random traces
 * with more threads. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "oracle/detector.h"

#ifndef TOTAL_EVENTS
#define TOTAL_EVENTS 4
#endif
#define MAX_PER_THREAD 5
#define NSYM 12
#define MAXT 16
#define MAXEV 256

enum { S_R0, S_W0, S_AC0, S_AG0, S_R1, S_W1, S_AC1, S_AG1, S_BAR, S_WSYNC, S_FC, S_FG };

typedef struct config {
    const char *name;
    uint32_t blocks, tpb, ws;
    uint32_t nthreads;       /* involved threads */
    uint32_t thread[MAXT];   /* their linear ids */
    uint32_t idle[4], nidle; /* threads that exit at once */
} config;

typedef struct checker {
    const config *cfg;
    gr_detector *hb, *fsm;
    unsigned hb_mask, fsm_mask;  /* racy address indices of the current trace */
    unsigned *cur_mask;
    uint64_t traces, decided, racy, mismatch, unsound, deadlocks;
    gr_event ev[MAXEV];
    size_t nev;
    int prog[MAXT][MAX_PER_THREAD + 1];
    int len[MAXT];
} checker;

static void on_race(void *user, const gr_race *r) {
    unsigned *mask = user;
    *mask |= 1u << ((r->addr / 4) & 7);
}

static void push(checker *c, gr_event e) {
    if (c->nev < MAXEV) c->ev[c->nev++] = e;
}

static bool run_one(checker *c, gr_detector *d, unsigned *mask, uint64_t *undecided) {
    gr_error err = GR_ERROR_INIT;
    *mask = 0;
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
        case GR_EV_BARRIER_ARRIVE: fprintf(stderr, "  t%u bar.arrive\n", e->u.arrive.thread); break;
        case GR_EV_BARRIER_COMPLETE: fprintf(stderr, "  block%u bar complete\n", e->u.complete.block); break;
        case GR_EV_WARP_SYNC: fprintf(stderr, "  b%u w%u syncwarp %x\n", e->u.warp.block, e->u.warp.warp, e->u.warp.mask); break;
        case GR_EV_FENCE: fprintf(stderr, "  t%u fence.%s\n", e->u.fence.thread, e->u.fence.scope ? "gpu" : "cta"); break;
        case GR_EV_THREAD_EXIT: fprintf(stderr, "  t%u exit\n", e->u.exit.thread); break;
        default: fprintf(stderr, "  event %u\n", e->type);
        }
    }
}

static void check_trace(checker *c) {
    uint64_t und_hb = 0, und_fsm = 0;
    unsigned hb = 0, fsm = 0;
    cr_assert(run_one(c, c->hb, &c->hb_mask, &und_hb));
    hb = c->hb_mask;
    cr_assert(run_one(c, c->fsm, &c->fsm_mask, &und_fsm));
    fsm = c->fsm_mask;
    c->traces++;
    if (hb) c->racy++;
    bool bad = false;
    if (fsm & ~hb) {
        c->unsound++;
        bad = true;
    }
    if (und_fsm == 0) {
        c->decided++;
        if (fsm != hb) {
            c->mismatch++;
            bad = true;
        }
    }
    if (bad && c->unsound + c->mismatch <= 3) {
        fprintf(stderr, "%s: FSM racy %x, HB racy %x, FSM undecided %llu\n", c->cfg->name, fsm, hb,
                (unsigned long long)und_fsm);
        print_trace(c);
    }
}

static gr_event access_ev(uint32_t t, int sym, uint32_t instr) {
    gr_event e = {.type = GR_EV_ACCESS};
    int a = sym >= S_R1 ? 1 : 0, k = sym % 4;
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
    int wait[MAXT];  /* 0 running, S_BAR or S_WSYNC */
    int done[MAXT];
} sched;

static void complete_syncs(checker *c, sched *s) {
    const config *g = c->cfg;
    bool again = true;
    while (again) {
        again = false;
        for (uint32_t b = 0; b < g->blocks; b++) {
            bool any = false, all = true;
            for (uint32_t i = 0; i < g->nthreads; i++) {
                if (g->thread[i] / g->tpb != b || s->done[i]) continue;
                if (s->wait[i] == S_BAR) any = true;
                else all = false;
            }
            if (any && all) {
                gr_event e = {.type = GR_EV_BARRIER_COMPLETE};
                e.u.complete.block = b;
                push(c, e);
                for (uint32_t i = 0; i < g->nthreads; i++)
                    if (g->thread[i] / g->tpb == b && !s->done[i]) s->wait[i] = 0;
                again = true;
            }
        }
        for (uint32_t i = 0; i < g->nthreads; i++) {
            if (s->done[i] || s->wait[i] != S_WSYNC) continue;
            uint32_t t = g->thread[i], b = t / g->tpb, w = (t % g->tpb) / g->ws;
            bool all = true;
            uint32_t mask = 0;
            for (uint32_t j = 0; j < g->nthreads; j++) {
                uint32_t u = g->thread[j];
                if (u / g->tpb != b || (u % g->tpb) / g->ws != w || s->done[j]) continue;
                if (s->wait[j] != S_WSYNC) all = false;
                mask |= 1u << ((u % g->tpb) % g->ws);
            }
            if (!all) continue;
            gr_event e = {.type = GR_EV_WARP_SYNC};
            e.u.warp.block = b;
            e.u.warp.warp = w;
            e.u.warp.mask = mask;
            push(c, e);
            for (uint32_t j = 0; j < g->nthreads; j++) {
                uint32_t u = g->thread[j];
                if (u / g->tpb == b && (u % g->tpb) / g->ws == w && !s->done[j]) s->wait[j] = 0;
            }
            again = true;
        }
    }
}

static void step_thread(checker *c, sched *s, uint32_t i) {
    const config *g = c->cfg;
    uint32_t t = g->thread[i];
    int sym = c->prog[i][s->pc[i]++];
    if (sym <= S_AG1) {
        push(c, access_ev(t, sym, (uint32_t)(i * 8 + s->pc[i])));
    } else if (sym == S_BAR) {
        gr_event e = {.type = GR_EV_BARRIER_ARRIVE};
        e.u.arrive.thread = t;
        e.u.arrive.waits = true;
        push(c, e);
        s->wait[i] = S_BAR;
    } else if (sym == S_WSYNC) {
        s->wait[i] = S_WSYNC;
    } else {
        gr_event e = {.type = GR_EV_FENCE};
        e.u.fence.thread = t;
        e.u.fence.scope = sym == S_FC ? GR_SCOPE_CTA : GR_SCOPE_GPU;
        e.u.fence.sem = GR_SEM_SC;
        push(c, e);
    }
    if (s->pc[i] == c->len[i] && !s->wait[i]) {
        gr_event e = {.type = GR_EV_THREAD_EXIT};
        e.u.exit.thread = t;
        push(c, e);
        s->done[i] = 1;
    }
    complete_syncs(c, s);
    /* A thread released from a wait at the end of its program exits now. */
    for (uint32_t j = 0; j < g->nthreads; j++)
        if (!s->done[j] && !s->wait[j] && s->pc[j] == c->len[j]) {
            gr_event e = {.type = GR_EV_THREAD_EXIT};
            e.u.exit.thread = g->thread[j];
            push(c, e);
            s->done[j] = 1;
            complete_syncs(c, s);
            j = (uint32_t)-1; /* an exit may release others: look again from the start */
        }
}

static void interleave(checker *c, sched *s) {
    const config *g = c->cfg;
    bool any = false, all_done = true;
    for (uint32_t i = 0; i < g->nthreads; i++) {
        if (s->done[i]) continue;
        all_done = false;
        if (s->wait[i]) continue;
        any = true;
        size_t mark = c->nev;
        sched saved = *s;
        step_thread(c, s, i);
        interleave(c, s);
        *s = saved;
        c->nev = mark;
    }
    if (all_done) check_trace(c);
    else if (!any) c->deadlocks++;
}

static void start_interleavings(checker *c) {
    sched s;
    memset(&s, 0, sizeof s);
    c->nev = 0;
    for (uint32_t i = 0; i < c->cfg->nidle; i++) {
        gr_event e = {.type = GR_EV_THREAD_EXIT};
        e.u.exit.thread = c->cfg->idle[i];
        push(c, e);
    }
    for (uint32_t i = 0; i < c->cfg->nthreads; i++)
        if (c->len[i] == 0) {
            gr_event e = {.type = GR_EV_THREAD_EXIT};
            e.u.exit.thread = c->cfg->thread[i];
            push(c, e);
            s.done[i] = 1;
        }
    interleave(c, &s);
}

/* Two threads are interchangeable when they share block and warp. */
static bool symmetric(const config *g, uint32_t i, uint32_t j) {
    uint32_t a = g->thread[i], b = g->thread[j];
    return a / g->tpb == b / g->tpb && (a % g->tpb) / g->ws == (b % g->tpb) / g->ws;
}

static long prog_code(const checker *c, uint32_t i) {
    long code = c->len[i];
    for (int k = 0; k < c->len[i]; k++) code = code * NSYM + c->prog[i][k];
    return code;
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
            enumerate_programs(c, i + 1, budget - len);
            int k = 0;
            while (k < len && ++idx[k] == NSYM) idx[k++] = 0;
            if (k == len) break;
        }
    }
}

static void make_detectors(checker *c, const config *g) {
    gr_error err = GR_ERROR_INIT;
    gr_launch_geometry geom = {{g->blocks, 1, 1}, {g->tpb, 1, 1}, g->ws};
    gr_detector_options hb = {.kind = GR_DETECTOR_HB, .on_race = on_race, .user = &c->hb_mask};
    gr_detector_options fsm = {.kind = GR_DETECTOR_FSM, .on_race = on_race, .user = &c->fsm_mask};
    c->cfg = g;
    c->hb = gr_detector_create(&geom, &hb, &err);
    c->fsm = gr_detector_create(&geom, &fsm, &err);
    cr_assert(c->hb && c->fsm);
}

static const config configs[] = {
    {"one warp", 1, 3, 4, 3, {0, 1, 2}, {0}, 0},
    {"two warps", 1, 3, 2, 3, {0, 1, 2}, {0}, 0},
    {"two blocks", 2, 2, 2, 3, {0, 1, 2}, {3}, 1},
    {"two blocks, warp per thread", 2, 2, 1, 3, {0, 1, 2}, {3}, 1},
};

Test(exhaustive, fsm_agrees_with_hb, .timeout = 120) {
    static checker c;
    uint64_t traces = 0, decided = 0, racy = 0;
    for (size_t k = 0; k < sizeof configs / sizeof configs[0]; k++) {
        memset(&c, 0, sizeof c);
        make_detectors(&c, &configs[k]);
        enumerate_programs(&c, 0, TOTAL_EVENTS);
        printf("exhaustive [%s]: %llu traces, %llu decided by the FSM, %llu racy (HB), "
               "%llu mismatches, %llu unsound FSM reports, %llu deadlocked schedules\n",
               configs[k].name, (unsigned long long)c.traces, (unsigned long long)c.decided,
               (unsigned long long)c.racy, (unsigned long long)c.mismatch,
               (unsigned long long)c.unsound, (unsigned long long)c.deadlocks);
        cr_expect_eq(c.mismatch, 0, "[%s] FSM and HB disagree on decided traces", configs[k].name);
        cr_expect_eq(c.unsound, 0, "[%s] FSM reported a race HB does not", configs[k].name);
        traces += c.traces;
        decided += c.decided;
        racy += c.racy;
        gr_detector_destroy(c.hb);
        gr_detector_destroy(c.fsm);
    }
    printf("exhaustive total (3 threads, <= %d operations): %llu traces, %llu decided, %llu racy\n",
           TOTAL_EVENTS, (unsigned long long)traces, (unsigned long long)decided,
           (unsigned long long)racy);
    fflush(stdout);
    cr_expect_gt(decided, traces / 2, "the FSM should decide most small traces");
}

/* Random traces: 12 threads in 2 blocks of 2 warps, random programs and schedules. */
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
        for (uint32_t i = 0; i < 12; i++) {
            c.len[i] = (int)(rng_next(&seed) % (MAX_PER_THREAD + 1));
            for (int k = 0; k < c.len[i]; k++) c.prog[i][k] = (int)(rng_next(&seed) % NSYM);
        }
        sched s;
        memset(&s, 0, sizeof s);
        c.nev = 0;
        for (uint32_t i = 0; i < 12; i++)
            if (c.len[i] == 0) {
                gr_event e = {.type = GR_EV_THREAD_EXIT};
                e.u.exit.thread = i;
                push(&c, e);
                s.done[i] = 1;
            }
        complete_syncs(&c, &s);
        for (;;) {
            uint32_t runnable[12], n = 0;
            bool all_done = true;
            for (uint32_t i = 0; i < 12; i++) {
                if (!s.done[i]) all_done = false;
                if (!s.done[i] && !s.wait[i]) runnable[n++] = i;
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
           "%llu mismatches, %llu unsound\n",
           (unsigned long long)c.traces, (unsigned long long)c.decided, (unsigned long long)c.racy,
           (unsigned long long)c.mismatch, (unsigned long long)c.unsound);
    cr_expect_eq(c.mismatch, 0);
    cr_expect_eq(c.unsound, 0);
    gr_detector_destroy(c.hb);
    gr_detector_destroy(c.fsm);
}
