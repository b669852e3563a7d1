/* deep.c — the state-space search behind deep.h. */
#include "deep.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oracle/fsm.h"
#include "oracle/hb.h"

enum {
    OP_R0, OP_W0, OP_AC0, OP_AG0, OP_R1, OP_W1, OP_AC1, OP_AG1, /* kind = op % 4, addr = op / 4 */
    OP_BAR, OP_ARRIVE, OP_WSYNC, OP_FC, OP_FG, OP_EXIT, NOPS
};
enum { WAIT_NONE = 0, WAIT_BAR, WAIT_WSYNC };

#define MAX_DEPTH (DEEP_MAX_THREADS * 6 + 2)
#define DESC_WORDS 4096
#define MAX_EVENTS 256

const deep_placement deep_placements[4] = {
    {"one warp", 1, 3, 4, 3, {0, 1, 2}, {0}, 0},
    {"two warps", 1, 3, 2, 3, {0, 1, 2}, {0}, 0},
    {"two blocks", 2, 2, 2, 3, {0, 1, 2}, {3}, 1},
    {"two blocks, warp per thread", 2, 2, 1, 3, {0, 1, 2}, {3}, 1},
};

typedef struct sched {
    uint8_t count[DEEP_MAX_THREADS], wait[DEEP_MAX_THREADS];
    uint8_t arrived[DEEP_MAX_THREADS], done[DEEP_MAX_THREADS];
    uint8_t used_addr; /* some access happened (before that, only address 0 is used) */
    uint8_t miss;      /* HB reported an access the FSM did not */
    uint8_t undecided; /* the FSM left an access undecided */
    uint8_t after_wait[DEEP_MAX_THREADS]; /* breakage only: released from bar.sync, no access since */
} sched;

/* What the detectors said about the accesses of one step. */
typedef struct step_verdict {
    bool racy;
    uint8_t kinds, inexact; /* bits per gr_race_kind */
} step_verdict;

typedef struct memo_entry {
    uint64_t k0, k1;
    double traces, decided, racy, mismatches;
} memo_entry;

typedef struct memo {
    memo_entry *e;
    size_t cap, n;
} memo;

typedef struct path_step {
    uint8_t thread, op;
} path_step;

typedef struct deep {
    const deep_placement *p;
    const deep_options *o;
    gr_fsm *fsm[MAX_DEPTH];
    gr_hb *hb[MAX_DEPTH];
    step_verdict fsm_v, hb_v;
    bool recording;
    memo table;
    deep_counts c;
    path_step path[MAX_DEPTH];
    gr_event ev[MAX_EVENTS]; /* replay mode: the trace so far */
    size_t nev;
    uint64_t desc[DESC_WORDS];
    gr_error *err;
    bool failed;
} deep;

typedef struct totals {
    double traces, decided, racy, mismatches;
} totals;

/* ---- detectors ---- */

static void on_race(void *user, const gr_race *r) {
    step_verdict *v = user;
    v->racy = true;
    if (r->flags & GR_RACE_KIND_INEXACT) v->inexact |= (uint8_t)(1u << r->kind);
    else v->kinds |= (uint8_t)(1u << r->kind);
}

static void on_race_fsm(void *user, const gr_race *r) {
    deep *d = user;
    if (d->recording) on_race(&d->fsm_v, r);
}

static void on_race_hb(void *user, const gr_race *r) {
    deep *d = user;
    if (d->recording) on_race(&d->hb_v, r);
}

static bool feed(deep *d, int level, const gr_event *e) {
    if (!gr_fsm_event(d->fsm[level], e, d->err) || !gr_hb_event(d->hb[level], e, d->err)) {
        d->failed = true;
        return false;
    }
    if (!d->o->memoize && d->nev < MAX_EVENTS) d->ev[d->nev++] = *e;
    return true;
}

/* ---- schedule ---- */

static uint32_t block_of(const deep_placement *p, uint32_t i) {
    return p->thread[i] / p->threads_per_block;
}
static uint32_t warp_of(const deep_placement *p, uint32_t i) {
    return (p->thread[i] % p->threads_per_block) / p->warp_size;
}

/* Completes barrier instances every live thread of the block arrived at, and warp syncs every
 * live involved lane of the warp waits at (the same rules as tests/oracle/test_exhaustive.c). */
static bool complete_syncs(deep *d, int level, sched *s) {
    const deep_placement *p = d->p;
    for (bool again = true; again;) {
        again = false;
        for (uint32_t b = 0; b < p->blocks; b++) {
            bool any = false, all = true;
            for (uint32_t i = 0; i < p->nthreads; i++) {
                if (block_of(p, i) != b) continue;
                if (s->arrived[i]) any = true;
                else if (!s->done[i]) all = false;
            }
            if (!any || !all) continue;
            gr_event e = {.type = GR_EV_BARRIER_COMPLETE};
            e.u.complete.block = b;
            if (!feed(d, level, &e)) return false;
            for (uint32_t i = 0; i < p->nthreads; i++)
                if (block_of(p, i) == b) {
                    s->arrived[i] = 0;
                    if (s->wait[i] == WAIT_BAR) {
                        s->wait[i] = WAIT_NONE;
                        s->after_wait[i] = 1;
                    }
                }
            again = true;
        }
        for (uint32_t i = 0; i < p->nthreads; i++) {
            if (s->done[i] || s->wait[i] != WAIT_WSYNC) continue;
            uint32_t b = block_of(p, i), w = warp_of(p, i), mask = 0;
            bool all = true;
            for (uint32_t j = 0; j < p->nthreads; j++) {
                if (block_of(p, j) != b || warp_of(p, j) != w || s->done[j]) continue;
                if (s->wait[j] != WAIT_WSYNC) all = false;
                mask |= 1u << ((p->thread[j] % p->threads_per_block) % p->warp_size);
            }
            if (!all) continue;
            gr_event e = {.type = GR_EV_WARP_SYNC};
            e.u.warp.block = b;
            e.u.warp.warp = w;
            e.u.warp.mask = mask;
            if (!feed(d, level, &e)) return false;
            for (uint32_t j = 0; j < p->nthreads; j++)
                if (block_of(p, j) == b && warp_of(p, j) == w && !s->done[j]) s->wait[j] = WAIT_NONE;
            again = true;
        }
    }
    return true;
}

static bool barrier_op(int op) { return op == OP_BAR || op == OP_ARRIVE; }

static bool allowed(const deep *d, const sched *s, uint32_t i, int op, int total_ops) {
    if (s->done[i] || s->wait[i]) return false;
    if (op == OP_EXIT) return true;
    if (s->count[i] >= d->o->per_thread) return false;
    if (d->o->total && total_ops >= d->o->total) return false;
    if (barrier_op(op) && s->arrived[i]) return false; /* one arrival per instance */
    if (op <= OP_AG1 && !s->used_addr && op / 4 != 0) return false; /* addresses are symmetric */
    return true;
}

static gr_event access_event(uint32_t thread, int op, uint32_t instr) {
    gr_event e = {.type = GR_EV_ACCESS};
    int kind = op % 4;
    e.u.access = (gr_access){.addr = 4u * (uint32_t)(op / 4), .thread = thread, .instr = instr,
                             .space = GR_SPACE_GLOBAL, .size = 4};
    if (kind == 0) e.u.access.kind = GR_ACCESS_READ;
    else if (kind == 1) e.u.access.kind = GR_ACCESS_WRITE;
    else {
        e.u.access.kind = GR_ACCESS_ATOMIC;
        e.u.access.op = GR_ATOM_ADD;
        e.u.access.scope = kind == 2 ? GR_SCOPE_CTA : GR_SCOPE_GPU;
    }
    return e;
}

/* Thread i's step `op` on the detectors of `level` and the schedule. */
static bool apply(deep *d, int level, sched *s, uint32_t i, int op) {
    uint32_t t = d->p->thread[i];
    gr_event e = {0};
    if (op <= OP_AG1) {
        e = access_event(t, op, i * 8u + s->count[i] + 1u);
        s->used_addr = 1;
    } else if (barrier_op(op)) {
        e.type = GR_EV_BARRIER_ARRIVE;
        e.u.arrive.thread = t;
        e.u.arrive.waits = op == OP_BAR;
        s->arrived[i] = 1;
        if (op == OP_BAR) s->wait[i] = WAIT_BAR;
    } else if (op == OP_WSYNC) {
        s->wait[i] = WAIT_WSYNC;
    } else if (op == OP_EXIT) {
        e.type = GR_EV_THREAD_EXIT;
        e.u.exit.thread = t;
        s->done[i] = 1;
    } else {
        e.type = GR_EV_FENCE;
        e.u.fence.thread = t;
        e.u.fence.scope = op == OP_FC ? GR_SCOPE_CTA : GR_SCOPE_GPU;
        e.u.fence.sem = GR_SEM_SC;
    }
    if (op != OP_EXIT) s->count[i]++;
    if (op != OP_WSYNC && !feed(d, level, &e)) return false;
    return complete_syncs(d, level, s);
}

/* ---- memo table: open addressing on 128-bit keys ---- */

static uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t rotl(uint64_t x, int r) { return x << r | x >> (64 - r); }

static void hash_words(const uint64_t *w, size_t n, uint64_t *h0, uint64_t *h1) {
    uint64_t a = *h0, b = *h1;
    for (size_t i = 0; i < n; i++) {
        a = rotl(a ^ mix64(w[i] + 0x9e3779b97f4a7c15ULL), 29) * 0xff51afd7ed558ccdULL;
        b = rotl(b ^ mix64(w[i] ^ 0xc4ceb9fe1a85ec53ULL), 31) * 0x87c37b91114253d5ULL;
    }
    *h0 = a;
    *h1 = b;
}

static bool memo_grow(memo *m) {
    size_t cap = m->cap ? m->cap * 2 : (size_t)1 << 16;
    memo_entry *e = calloc(cap, sizeof *e);
    if (!e) return false;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->e[i].k0) continue;
        size_t s = m->e[i].k1 & (cap - 1);
        while (e[s].k0) s = (s + 1) & (cap - 1);
        e[s] = m->e[i];
    }
    free(m->e);
    m->e = e;
    m->cap = cap;
    return true;
}

/* The slot of key (k0 != 0): found (k0 set) or free. NULL when out of memory. */
static memo_entry *memo_slot(memo *m, uint64_t k0, uint64_t k1) {
    if ((m->n + 1) * 4 > m->cap * 3 && !memo_grow(m)) return NULL;
    size_t s = k1 & (m->cap - 1);
    while (m->e[s].k0 && (m->e[s].k0 != k0 || m->e[s].k1 != k1)) s = (s + 1) & (m->cap - 1);
    return &m->e[s];
}

/* The joint state's key: schedule, verdict flags, both detectors' canonical states. */
static bool joint_key(deep *d, int level, const sched *s, uint64_t *k0, uint64_t *k1) {
    uint64_t h0 = 0x243f6a8885a308d3ULL, h1 = 0x13198a2e03707344ULL;
    uint64_t w[2] = {0, 0};
    for (uint32_t i = 0; i < d->p->nthreads; i++)
        w[0] |= (uint64_t)(s->count[i] | s->wait[i] << 3 | s->arrived[i] << 5 | s->done[i] << 6 |
                           s->after_wait[i] << 7)
                << (8 * i);
    w[1] = (uint64_t)s->used_addr | (uint64_t)s->miss << 1 | (uint64_t)s->undecided << 2;
    hash_words(w, 2, &h0, &h1);
    size_t n = gr_fsm_canonical_state(d->fsm[level], d->desc, DESC_WORDS);
    if (n == 0 || n > DESC_WORDS) return gr_fail(d->err, GR_ERR_INTERNAL, "FSM state too large to describe");
    hash_words(d->desc, n, &h0, &h1);
    n = gr_hb_canonical_state(d->hb[level], d->desc, DESC_WORDS);
    if (n == 0 || n > DESC_WORDS) return gr_fail(d->err, GR_ERR_INTERNAL, "HB state too large to describe");
    hash_words(d->desc, n, &h0, &h1);
    *k0 = mix64(h0 ^ rotl(h1, 17)) | 1u; /* nonzero: 0 marks a free slot */
    *k1 = mix64(h1 + h0);
    return true;
}

/* ---- the search ---- */

static const char *op_name(int op) {
    static const char *const names[NOPS] = {
        "R a0", "W a0", "atom.cta a0", "atom.gpu a0", "R a1", "W a1", "atom.cta a1", "atom.gpu a1",
        "bar.sync", "bar.arrive", "__syncwarp", "fence.cta", "fence.gpu", "exit"};
    return names[op];
}

static void print_path(const deep *d, int depth, const char *what) {
    FILE *log = d->o->log;
    if (!log) return;
    fprintf(log, "[%s] %s:\n", d->p->name, what);
    for (int k = 0; k < depth; k++)
        fprintf(log, "  t%u %s\n", d->p->thread[d->path[k].thread], op_name(d->path[k].op));
}

/* Applies the test-only breakage to the FSM's verdict on the step. */
static void break_verdict(deep *d, const sched *before, uint32_t i, int op) {
    if (d->o->breakage == DEEP_BREAK_DROP_CROSS_BLOCK_WRITE && op <= OP_AG1 && op % 4 != 0 &&
        d->p->blocks > 1 && d->fsm_v.racy) {
        d->fsm_v = (step_verdict){0};
    } else if (d->o->breakage == DEEP_BREAK_ALARM_AFTER_BARRIER && op <= OP_AG1 && op % 4 == 0 &&
               before->after_wait[i] && !d->fsm_v.racy) {
        d->fsm_v.racy = true;
        d->fsm_v.kinds = 1u << GR_RACE_RAW;
    }
}

/* Rebuilds level `level` by replaying the trace so far into fresh-reset detectors. */
static bool replay(deep *d, int level) {
    gr_event end = {.type = GR_EV_KERNEL_END};
    size_t n = d->nev;
    bool rec = d->recording;
    d->recording = false;
    bool ok = gr_fsm_event(d->fsm[level], &end, d->err) && gr_hb_event(d->hb[level], &end, d->err);
    for (size_t k = 0; ok && k < n; k++)
        ok = gr_fsm_event(d->fsm[level], &d->ev[k], d->err) &&
             gr_hb_event(d->hb[level], &d->ev[k], d->err);
    d->recording = rec;
    if (!ok) d->failed = true;
    return ok;
}

static totals explore(deep *d, int level, const sched *s);

static totals terminal(const sched *s) {
    bool mismatch = s->miss && !s->undecided;
    return (totals){1, !s->undecided, 0, mismatch};
}

/* The totals of the traces below `child`: its own verdict when every thread is done, else a
 * search one level down (detector copy `next`). False when that search failed. */
static bool below(deep *d, int level, int next, const sched *child, bool all_done, totals *t) {
    if (all_done) {
        *t = terminal(child);
        if (t->mismatches && d->c.mismatch_states++ < 3)
            print_path(d, level + 1, "racing accesses differ on a decided trace");
        return true;
    }
    *t = explore(d, next, child);
    return !d->failed;
}

/* One step of thread i from the state at `level`: its verdicts and the totals of its future. */
static bool step(deep *d, int level, const sched *s, uint32_t i, int op, totals *acc) {
    sched child = *s;
    int next = level + 1;
    size_t mark = d->nev;
    if (d->o->memoize) {
        if (!gr_fsm_copy(d->fsm[next], d->fsm[level], d->err) ||
            !gr_hb_copy(d->hb[next], d->hb[level], d->err))
            return false;
    } else if (!replay(d, next)) {
        return false;
    }
    uint64_t und0 = gr_fsm_undecided(d->fsm[next]);
    d->fsm_v = d->hb_v = (step_verdict){0};
    d->recording = true;
    bool ok = apply(d, next, &child, i, op);
    d->recording = false;
    if (!ok) return false;
    if (op <= OP_AG1) child.after_wait[i] = 0;
    /* Only the breakage that reads after_wait may keep it in the joint state. */
    if (d->o->breakage != DEEP_BREAK_ALARM_AFTER_BARRIER)
        memset(child.after_wait, 0, sizeof child.after_wait);
    break_verdict(d, s, i, op);
    d->c.edges++;
    d->path[level] = (path_step){(uint8_t)i, (uint8_t)op};
    bool undecided = gr_fsm_undecided(d->fsm[next]) != und0;
    /* Copies: the search below overwrites d->fsm_v and d->hb_v. */
    const step_verdict fsm_v = d->fsm_v, hb_v = d->hb_v, *fv = &fsm_v, *hv = &hb_v;
    if ((fv->racy && !hv->racy) || (fv->kinds & ~hv->kinds)) {
        if (d->c.unsound++ < 3) print_path(d, level + 1, "FSM reports an access HB does not, or another kind");
    }
    if (hv->racy && !fv->racy) child.miss = 1;
    if (undecided) child.undecided = 1;
    if (child.undecided) child.miss = 0; /* such traces are outside the decided class */
    bool all_done = true;
    for (uint32_t k = 0; k < d->p->nthreads; k++) all_done &= child.done[k] != 0;
    totals t;
    if (d->o->memoize) {
        uint64_t k0 = 0, k1 = 0;
        if (!joint_key(d, next, &child, &k0, &k1)) return false;
        memo_entry *e = memo_slot(&d->table, k0, k1);
        if (!e) return gr_fail(d->err, GR_ERR_NOMEM, "out of memory for the state table");
        if (e->k0) {
            t = (totals){e->traces, e->decided, e->racy, e->mismatches};
        } else {
            if (!below(d, level, next, &child, all_done, &t)) return false;
            /* explore() may have grown the table: look the slot up again. */
            e = memo_slot(&d->table, k0, k1);
            if (!e) return gr_fail(d->err, GR_ERR_NOMEM, "out of memory for the state table");
            *e = (memo_entry){k0, k1, t.traces, t.decided, t.racy, t.mismatches};
            d->table.n++;
            d->c.states++;
        }
    } else {
        d->c.states++;
        if (!below(d, level, next, &child, all_done, &t)) return false;
    }
    d->nev = mark;
    acc->traces += t.traces;
    acc->decided += t.decided;
    acc->mismatches += t.mismatches;
    acc->racy += hv->racy ? t.traces : t.racy;
    return true;
}

static totals explore(deep *d, int level, const sched *s) {
    totals acc = {0};
    if (level + 1 >= MAX_DEPTH) {
        d->failed = true;
        gr_fail(d->err, GR_ERR_INTERNAL, "trace deeper than %d steps", MAX_DEPTH);
        return acc;
    }
    int total_ops = 0;
    for (uint32_t i = 0; i < d->p->nthreads; i++) total_ops += s->count[i];
    bool any = false;
    for (uint32_t i = 0; i < d->p->nthreads; i++)
        for (int op = 0; op < NOPS; op++) {
            if (!allowed(d, s, i, op, total_ops)) continue;
            any = true;
            if (!step(d, level, s, i, op, &acc)) {
                d->failed = true;
                return acc;
            }
        }
    if (!any) d->c.deadlocks++;
    return acc;
}

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool deep_run(const deep_placement *p, const deep_options *o, deep_counts *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    if (p->nthreads > DEEP_MAX_THREADS || o->per_thread < 0 || o->per_thread > 5)
        return gr_fail(err, GR_ERR_USAGE, "deep check: bound out of range");
    deep *d = calloc(1, sizeof *d);
    if (!d) return gr_fail(err, GR_ERR_NOMEM, "out of memory for the deep check");
    d->p = p;
    d->o = o;
    d->err = err;
    double t0 = seconds();
    clock_t cpu0 = clock();
    gr_launch_geometry geom = {{p->blocks, 1, 1}, {p->threads_per_block, 1, 1}, p->warp_size};
    bool ok = true;
    for (int k = 0; ok && k < MAX_DEPTH; k++) {
        d->fsm[k] = gr_fsm_create(&geom, false, on_race_fsm, d, err);
        d->hb[k] = d->fsm[k] ? gr_hb_create(&geom, false, on_race_hb, d, err) : NULL;
        ok = d->hb[k] != NULL;
        /* Warm-up: an access then kernel end leaves the detectors empty but with their shadow
         * page and location tables allocated alike at every level, so copying between levels
         * never allocates or frees. */
        gr_event warm = access_event(p->thread[0], OP_W0, 0), end = {.type = GR_EV_KERNEL_END};
        d->recording = false;
        ok = ok && gr_fsm_event(d->fsm[k], &warm, err) && gr_hb_event(d->hb[k], &warm, err) &&
             gr_fsm_event(d->fsm[k], &end, err) && gr_hb_event(d->hb[k], &end, err);
    }
    sched s;
    memset(&s, 0, sizeof s);
    for (uint32_t k = 0; ok && k < p->nidle; k++) {
        gr_event e = {.type = GR_EV_THREAD_EXIT};
        e.u.exit.thread = p->idle[k];
        ok = feed(d, 0, &e);
    }
    if (ok) {
        totals t = explore(d, 0, &s);
        ok = !d->failed;
        d->c.traces = t.traces;
        d->c.decided = t.decided;
        d->c.racy = t.racy;
        d->c.mismatches = t.mismatches;
    }
    d->c.seconds = seconds() - t0;
    d->c.cpu_seconds = (double)(clock() - cpu0) / CLOCKS_PER_SEC;
    *out = d->c;
    for (int k = 0; k < MAX_DEPTH; k++) {
        gr_fsm_destroy(d->fsm[k]);
        gr_hb_destroy(d->hb[k]);
    }
    free(d->table.e);
    free(d);
    return ok;
}

void deep_print(FILE *out, const deep_placement *p, const deep_options *o, const deep_counts *c) {
    char bound[64];
    if (o->total) snprintf(bound, sizeof bound, "%d per thread, %d in all", o->per_thread, o->total);
    else snprintf(bound, sizeof bound, "%d per thread", o->per_thread);
    fprintf(out,
            "deep [%s] %s: %llu %s, %llu edges, %llu deadlocked states; "
            "%.0f traces, %.0f decided by the FSM, %.0f racy (HB); %.0f mismatching traces "
            "(%llu final states), %llu unsound steps; %.2f s (%.2f s of CPU)\n",
            p->name, bound,
            (unsigned long long)c->states, o->memoize ? "joint states" : "tree nodes",
            (unsigned long long)c->edges, (unsigned long long)c->deadlocks, c->traces,
            c->decided, c->racy, c->mismatches, (unsigned long long)c->mismatch_states,
            (unsigned long long)c->unsound, c->seconds, c->cpu_seconds);
}
