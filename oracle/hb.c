/* hb.c — vector-clock happens-before detector.
 *
 * Scoped-race diagnosis: a race between threads of different blocks is *scoped* when the two
 * accesses would be ordered had every block-scope atomic and fence of the launch had device
 * scope (a lock or message passing built with the wrong scope). To tell, a second detector
 * state runs alongside with every scope widened to device scope ("widened": it follows only
 * synchronization, no accesses). It starts at the first block-scope atomic or fence of a
 * launch as a copy of the state so far (until then both are the same) and stops at kernel end
 * (its storage is kept for the next launch, which also starts with a copy). Both
 * states tick the same clocks at the same events, so an access's clock means the same in
 * both. */
#include "oracle/hb.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BARRIERS 16u

/* A vector clock: one optional segment of clocks per block. */
typedef struct vclock {
    uint32_t **seg;
} vclock;

/* An access that may still race. */
typedef struct hb_acc {
    uint32_t thread, clock, instr;
    uint8_t write, atomic, scope, vol;
} hb_acc;

typedef struct acc_list {
    hb_acc *v;
    uint32_t n, cap;
} acc_list;

typedef struct hb_cell {
    acc_list acc;
} hb_cell;

/* A release recorded on a location: who released at which scope, and what they knew. */
typedef struct rel_entry {
    uint32_t block;
    uint8_t scope;  /* 0 cta, 1 gpu */
    vclock vc;
} rel_entry;

typedef struct sync_obj {
    rel_entry *e;
    uint32_t n, cap;
} sync_obj;

typedef struct hb_thread {
    vclock vc;
    vclock rel_fence[2];  /* what it knew at its last fence of scope >= cta / >= gpu */
    vclock pending[2];    /* releases seen by strong reads, acquired by a later fence */
    uint8_t has_fence[2];
    uint8_t strong_read;  /* performed a strong read (a later fence may acquire) */
    uint8_t cta_acquire;  /* performed a block-scope acquire (for the scoped diagnosis) */
    uint8_t exited;
} hb_thread;

typedef struct hb_barrier {
    vclock acc;
    uint32_t *waiters;
    uint32_t nwait;
    uint32_t arrived;
} hb_barrier;

/* Hash map from a location key to an index. */
typedef struct loc_key {
    uint64_t addr;
    uint32_t block;
    uint32_t space;
} loc_key;

typedef struct loc_map {
    loc_key *keys;
    uint32_t *vals;  /* index + 1; 0 empty */
    size_t cap, n;
} loc_map;

struct gr_hb {
    gr_launch_geometry geom;
    uint32_t tpb, ws, wpb, nblocks, nthreads;
    bool lockstep;
    bool widened;  /* the companion: every scope counts as device scope, accesses not tracked */
    gr_hb *wide;   /* the widened companion (kept from launch to launch once allocated) */
    bool wide_active; /* it follows this launch: a block-scope atomic or fence happened */
    gr_race_fn on_race;
    void *user;
    hb_thread *threads;
    hb_barrier *barriers;  /* nblocks * MAX_BARRIERS */
    uint8_t *block_cta_release;  /* a block-scope release happened in the block */
    loc_map cells_map;
    hb_cell *cells;
    size_t ncells, cap_cells;
    loc_map sync_map;
    sync_obj *syncs;
    size_t nsyncs, cap_syncs;
    bool oom;
};

/* ---- vector clocks ---- */

static uint32_t vc_get(const gr_hb *h, const vclock *v, uint32_t thread) {
    const uint32_t *s = v->seg[thread / h->tpb];
    return s ? s[thread % h->tpb] : 0;
}

static uint32_t *vc_seg(gr_hb *h, vclock *v, uint32_t block) {
    if (!v->seg[block]) {
        v->seg[block] = calloc(h->tpb, sizeof(uint32_t));
        if (!v->seg[block]) h->oom = true;
    }
    return v->seg[block];
}

static void vc_set(gr_hb *h, vclock *v, uint32_t thread, uint32_t clock) {
    uint32_t *s = vc_seg(h, v, thread / h->tpb);
    if (s) s[thread % h->tpb] = clock;
}

static bool vc_init(gr_hb *h, vclock *v) {
    v->seg = calloc(h->nblocks, sizeof *v->seg);
    if (!v->seg) h->oom = true;
    return v->seg != NULL;
}

static void vc_free(gr_hb *h, vclock *v) {
    if (!v->seg) return;
    for (uint32_t b = 0; b < h->nblocks; b++) free(v->seg[b]);
    free(v->seg);
    v->seg = NULL;
}

static void vc_clear(gr_hb *h, vclock *v) {
    for (uint32_t b = 0; b < h->nblocks; b++)
        if (v->seg[b]) memset(v->seg[b], 0, h->tpb * sizeof(uint32_t));
}

static void vc_join(gr_hb *h, vclock *dst, const vclock *src) {
    for (uint32_t b = 0; b < h->nblocks; b++) {
        const uint32_t *s = src->seg[b];
        if (!s) continue;
        uint32_t *d = vc_seg(h, dst, b);
        if (!d) return;
        for (uint32_t i = 0; i < h->tpb; i++)
            if (s[i] > d[i]) d[i] = s[i];
    }
}

static void vc_copy(gr_hb *h, vclock *dst, const vclock *src) {
    vc_clear(h, dst);
    vc_join(h, dst, src);
}

static uint32_t clock_of(const gr_hb *h, uint32_t thread) {
    return vc_get(h, &h->threads[thread].vc, thread);
}

static void tick(gr_hb *h, uint32_t thread) {
    vc_set(h, &h->threads[thread].vc, thread, clock_of(h, thread) + 1);
}

/* ---- location maps ---- */

static size_t key_hash(const loc_key *k) {
    uint64_t x = k->addr * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)k->block << 32 | k->space);
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ULL;
    return (size_t)(x ^ (x >> 29));
}

static bool key_eq(const loc_key *a, const loc_key *b) {
    return a->addr == b->addr && a->block == b->block && a->space == b->space;
}

/* Returns the index for the key, or UINT32_MAX when absent (and `insert_index` is 0), after
 * inserting `insert_index` otherwise. */
static uint32_t map_find(gr_hb *h, loc_map *m, const loc_key *k, uint32_t insert_index) {
    if (insert_index && (m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 256;
        loc_key *keys = calloc(cap, sizeof *keys);
        uint32_t *vals = calloc(cap, sizeof *vals);
        if (!keys || !vals) {
            free(keys);
            free(vals);
            h->oom = true;
            return UINT32_MAX;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->vals[i]) continue;
            size_t s = key_hash(&m->keys[i]) & (cap - 1);
            while (vals[s]) s = (s + 1) & (cap - 1);
            keys[s] = m->keys[i];
            vals[s] = m->vals[i];
        }
        free(m->keys);
        free(m->vals);
        m->keys = keys;
        m->vals = vals;
        m->cap = cap;
    }
    if (!m->cap) return UINT32_MAX;
    size_t s = key_hash(k) & (m->cap - 1);
    while (m->vals[s]) {
        if (key_eq(&m->keys[s], k)) return m->vals[s] - 1;
        s = (s + 1) & (m->cap - 1);
    }
    if (!insert_index) return UINT32_MAX;
    m->keys[s] = *k;
    m->vals[s] = insert_index;
    m->n++;
    return insert_index - 1;
}

/* Empties the map but keeps its storage (kernel end: the next launch reuses it). */
static void map_clear(loc_map *m) {
    if (m->cap) memset(m->vals, 0, m->cap * sizeof *m->vals);
    m->n = 0;
}

static void map_free(loc_map *m) {
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

static hb_cell *cell_for(gr_hb *h, const loc_key *k) {
    uint32_t i = map_find(h, &h->cells_map, k, 0);
    if (i != UINT32_MAX) return &h->cells[i];
    if (h->ncells == h->cap_cells) {
        size_t cap = h->cap_cells ? h->cap_cells * 2 : 256;
        hb_cell *cells = realloc(h->cells, cap * sizeof *cells);
        if (!cells) {
            h->oom = true;
            return NULL;
        }
        h->cells = cells;
        h->cap_cells = cap;
    }
    i = map_find(h, &h->cells_map, k, (uint32_t)h->ncells + 1);
    if (i == UINT32_MAX) return NULL;
    memset(&h->cells[i], 0, sizeof h->cells[i]);
    h->ncells++;
    return &h->cells[i];
}

static sync_obj *sync_for(gr_hb *h, const loc_key *k, bool create) {
    uint32_t i = map_find(h, &h->sync_map, k, 0);
    if (i != UINT32_MAX) return &h->syncs[i];
    if (!create) return NULL;
    if (h->nsyncs == h->cap_syncs) {
        size_t cap = h->cap_syncs ? h->cap_syncs * 2 : 64;
        sync_obj *s = realloc(h->syncs, cap * sizeof *s);
        if (!s) {
            h->oom = true;
            return NULL;
        }
        h->syncs = s;
        h->cap_syncs = cap;
    }
    i = map_find(h, &h->sync_map, k, (uint32_t)h->nsyncs + 1);
    if (i == UINT32_MAX) return NULL;
    memset(&h->syncs[i], 0, sizeof h->syncs[i]);
    h->nsyncs++;
    return &h->syncs[i];
}

static void sync_clear(gr_hb *h, sync_obj *s) {
    for (uint32_t i = 0; i < s->n; i++) vc_free(h, &s->e[i].vc);
    s->n = 0;
}

/* Adds (or widens) the release entry of `block` at `scope` with what `v` knows. */
static void sync_add(gr_hb *h, sync_obj *s, uint32_t block, uint8_t scope, const vclock *v) {
    for (uint32_t i = 0; i < s->n; i++)
        if (s->e[i].block == block && s->e[i].scope == scope) {
            vc_join(h, &s->e[i].vc, v);
            return;
        }
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 2;
        rel_entry *e = realloc(s->e, cap * sizeof *e);
        if (!e) {
            h->oom = true;
            return;
        }
        s->e = e;
        s->cap = cap;
    }
    rel_entry *e = &s->e[s->n];
    e->block = block;
    e->scope = scope;
    if (!vc_init(h, &e->vc)) return;
    s->n++;
    vc_join(h, &e->vc, v);
}

/* A scope covers a pair of threads when it is gpu-wide or they share a block. */
static bool covers(uint8_t scope, uint32_t block_a, uint32_t block_b) {
    return scope >= 1 || block_a == block_b;
}

/* Joins into `dst` the entries of `s` that an acquire at `scope` by a thread of `block` pairs
 * with: the release scope covers the acquirer and the acquire scope covers the releaser. */
static void sync_acquire(gr_hb *h, vclock *dst, const sync_obj *s, uint32_t block, uint8_t scope) {
    for (uint32_t i = 0; i < s->n; i++)
        if (covers(s->e[i].scope, s->e[i].block, block) && covers(scope, block, s->e[i].block))
            vc_join(h, dst, &s->e[i].vc);
}

/* ---- life cycle ---- */

static void clear_syncs(gr_hb *h) {
    for (size_t i = 0; i < h->nsyncs; i++) {
        sync_clear(h, &h->syncs[i]);
        free(h->syncs[i].e);
    }
    h->nsyncs = 0;
    map_clear(&h->sync_map);
}

static void reset_all(gr_hb *h) {
    for (uint32_t t = 0; t < h->nthreads; t++) {
        hb_thread *th = &h->threads[t];
        vc_clear(h, &th->vc);
        for (int s = 0; s < 2; s++) {
            vc_clear(h, &th->rel_fence[s]);
            vc_clear(h, &th->pending[s]);
            th->has_fence[s] = 0;
        }
        th->cta_acquire = 0;
        th->strong_read = 0;
        th->exited = 0;
        vc_set(h, &th->vc, t, 1);
    }
    for (uint32_t i = 0; i < h->nblocks * MAX_BARRIERS; i++) {
        vc_clear(h, &h->barriers[i].acc);
        h->barriers[i].nwait = h->barriers[i].arrived = 0;
    }
    memset(h->block_cta_release, 0, h->nblocks);
    for (size_t i = 0; i < h->ncells; i++) free(h->cells[i].acc.v);
    h->ncells = 0;
    map_clear(&h->cells_map);
    clear_syncs(h);
}

gr_hb *gr_hb_create(const gr_launch_geometry *geom, bool lockstep, gr_race_fn on_race, void *user,
                    gr_error *err) {
    uint64_t tpb = gr_geom_threads_per_block(geom), nb = gr_geom_blocks(geom);
    if (tpb == 0 || nb == 0 || tpb * nb > UINT32_MAX / 2) {
        gr_fail(err, GR_ERR_USAGE, "launch geometry out of range for the happens-before detector");
        return NULL;
    }
    gr_hb *h = calloc(1, sizeof *h);
    if (!h) goto oom;
    h->geom = *geom;
    h->tpb = (uint32_t)tpb;
    h->ws = gr_geom_warp_size(geom);
    h->wpb = gr_geom_warps_per_block(geom);
    h->nblocks = (uint32_t)nb;
    h->nthreads = (uint32_t)(tpb * nb);
    h->lockstep = lockstep;
    h->on_race = on_race;
    h->user = user;
    h->threads = calloc(h->nthreads, sizeof *h->threads);
    h->barriers = calloc((size_t)h->nblocks * MAX_BARRIERS, sizeof *h->barriers);
    h->block_cta_release = calloc(h->nblocks, 1);
    if (!h->threads || !h->barriers || !h->block_cta_release) goto oom;
    for (uint32_t t = 0; t < h->nthreads; t++) {
        hb_thread *th = &h->threads[t];
        if (!vc_init(h, &th->vc) || !vc_init(h, &th->rel_fence[0]) || !vc_init(h, &th->rel_fence[1]) ||
            !vc_init(h, &th->pending[0]) || !vc_init(h, &th->pending[1]))
            goto oom;
    }
    for (uint32_t i = 0; i < h->nblocks * MAX_BARRIERS; i++) {
        if (!vc_init(h, &h->barriers[i].acc)) goto oom;
        h->barriers[i].waiters = calloc(h->tpb, sizeof(uint32_t));
        if (!h->barriers[i].waiters) goto oom;
    }
    reset_all(h);
    if (h->oom) goto oom;
    return h;
oom:
    gr_hb_destroy(h);
    gr_fail(err, GR_ERR_NOMEM, "out of memory creating the happens-before detector");
    return NULL;
}

void gr_hb_destroy(gr_hb *h) {
    if (!h) return;
    gr_hb_destroy(h->wide);
    if (h->threads) {
        for (uint32_t t = 0; t < h->nthreads; t++) {
            hb_thread *th = &h->threads[t];
            vc_free(h, &th->vc);
            for (int s = 0; s < 2; s++) {
                vc_free(h, &th->rel_fence[s]);
                vc_free(h, &th->pending[s]);
            }
        }
    }
    if (h->barriers) {
        for (uint32_t i = 0; i < h->nblocks * MAX_BARRIERS; i++) {
            vc_free(h, &h->barriers[i].acc);
            free(h->barriers[i].waiters);
        }
    }
    for (size_t i = 0; i < h->ncells; i++) free(h->cells[i].acc.v);
    for (size_t i = 0; i < h->nsyncs; i++) {
        sync_clear(h, &h->syncs[i]);
        free(h->syncs[i].e);
    }
    free(h->cells);
    free(h->syncs);
    map_free(&h->cells_map);
    map_free(&h->sync_map);
    free(h->threads);
    free(h->barriers);
    free(h->block_cta_release);
    free(h);
}

/* ---- the widened companion ---- */

/* Starts h->wide as a copy of h's synchronization state (h has seen no block-scope atomic or
 * fence in this launch yet, so widening would have changed nothing so far). */
static void start_widened(gr_hb *h) {
    /* With one block, block scope covers every pair: widening would change nothing. */
    if (h->widened || h->wide_active || h->oom || h->nblocks < 2) return;
    if (!h->wide) {
        gr_error err = GR_ERROR_INIT;
        h->wide = gr_hb_create(&h->geom, h->lockstep, NULL, NULL, &err);
        gr_error_clear(&err);
        if (!h->wide) {
            h->oom = true;
            return;
        }
        h->wide->widened = true;
    }
    gr_hb *w = h->wide;
    clear_syncs(w);
    for (uint32_t t = 0; t < h->nthreads; t++) {
        const hb_thread *src = &h->threads[t];
        hb_thread *dst = &w->threads[t];
        vc_copy(w, &dst->vc, &src->vc);
        for (int sc = 0; sc < 2; sc++) {
            vc_copy(w, &dst->rel_fence[sc], &src->rel_fence[sc]);
            vc_copy(w, &dst->pending[sc], &src->pending[sc]);
            dst->has_fence[sc] = src->has_fence[sc];
        }
        dst->strong_read = src->strong_read;
        dst->cta_acquire = src->cta_acquire;
        dst->exited = src->exited;
    }
    for (uint32_t i = 0; i < h->nblocks * MAX_BARRIERS; i++) {
        const hb_barrier *src = &h->barriers[i];
        hb_barrier *dst = &w->barriers[i];
        vc_copy(w, &dst->acc, &src->acc);
        memcpy(dst->waiters, src->waiters, src->nwait * sizeof *src->waiters);
        dst->nwait = src->nwait;
        dst->arrived = src->arrived;
    }
    memcpy(w->block_cta_release, h->block_cta_release, h->nblocks);
    for (size_t slot = 0; slot < h->sync_map.cap; slot++) {
        if (!h->sync_map.vals[slot]) continue;
        const sync_obj *src = &h->syncs[h->sync_map.vals[slot] - 1];
        sync_obj *dst = sync_for(w, &h->sync_map.keys[slot], true);
        if (!dst) break;
        for (uint32_t i = 0; i < src->n; i++)
            sync_add(w, dst, src->e[i].block, src->e[i].scope, &src->e[i].vc);
    }
    if (w->oom) {
        h->oom = true;
        return;
    }
    h->wide_active = true;
}

/* Does the access `old` happen before thread `thread`'s next access once scopes are widened? */
static bool widened_ordered(const gr_hb *h, const hb_acc *old, uint32_t thread) {
    const gr_hb *w = h->wide;
    return h->wide_active && vc_get(w, &w->threads[thread].vc, old->thread) >= old->clock;
}

/* ---- accesses ---- */

static bool check_thread(const gr_hb *h, uint32_t thread, gr_error *err) {
    if (thread < h->nthreads) return true;
    return gr_fail(err, GR_ERR_INTERNAL, "event names thread %u, but the launch has %u threads",
                   thread, h->nthreads);
}

static bool oom_error(gr_hb *h, gr_error *err) {
    if (!h->oom) return true;
    return gr_fail(err, GR_ERR_NOMEM, "out of memory in the happens-before detector");
}

/* Would a race between `old` and `new` be excused by both being atomics of covering scope? */
static bool atomic_pair_ok(const gr_hb *h, const hb_acc *x, const hb_acc *y) {
    if (!x->atomic || !y->atomic) return false;
    uint32_t bx = x->thread / h->tpb, by = y->thread / h->tpb;
    return covers(x->scope, bx, by) && covers(y->scope, bx, by);
}

/* May `old` be dropped once `nw` (which `old` happens before) is recorded? Only if every later
 * access racing with `old` also races with `nw`. */
static bool covered_by(const gr_hb *h, const hb_acc *old, const hb_acc *nw) {
    if (old->write && !nw->write) return false;
    if (!nw->atomic) return true;
    return old->atomic && old->thread / h->tpb == nw->thread / h->tpb && old->scope >= nw->scope;
}

static void report(gr_hb *h, const hb_acc *old, const hb_acc *nw, const gr_access *a,
                   uint64_t addr) {
    uint32_t bo = old->thread / h->tpb, bn = nw->thread / h->tpb;
    gr_race r = {.space = a->space, .block = a->space == GR_SPACE_SHARED ? bn : 0, .addr = addr,
                 .first_thread = old->thread, .second_thread = nw->thread,
                 .first_instr = old->instr, .second_instr = nw->instr, .count = 1};
    if (old->atomic && nw->atomic) {
        r.kind = GR_RACE_ATOMIC_SCOPE;
        r.flags |= GR_RACE_SCOPED;
        r.cause = GR_CAUSE_SCOPE_ATOMIC;
    } else {
        if (old->atomic != nw->atomic) r.kind = GR_RACE_ATOMIC_PLAIN;
        else if (!nw->write) r.kind = GR_RACE_RAW;
        else r.kind = old->write ? GR_RACE_WAW : GR_RACE_WAR;
        if (bo != bn) {
            bool narrow_fence = h->threads[nw->thread].cta_acquire || h->block_cta_release[bo];
            if (narrow_fence) {
                r.cause = GR_CAUSE_SCOPE_FENCE;
                r.flags |= GR_RACE_SCOPED;
            } else if (widened_ordered(h, old, nw->thread)) {
                /* Device-scope fences, yet the atomics they pair with (a lock word, a flag)
                 * have block scope: a lock of block scope between threads of different
                 * blocks. */
                r.cause = GR_CAUSE_SCOPE_ATOMIC;
                r.flags |= GR_RACE_SCOPED;
            } else {
                r.cause = GR_CAUSE_NO_SYNC_BLOCKS;
            }
        } else if ((old->thread % h->tpb) / h->ws != (nw->thread % h->tpb) / h->ws) {
            r.cause = GR_CAUSE_NO_BARRIER;
        } else {
            r.cause = h->lockstep ? GR_CAUSE_SAME_STEP : GR_CAUSE_NO_WARP_SYNC;
        }
        bool strong_old = old->atomic || old->vol, strong_new = nw->atomic || nw->vol;
        if (strong_old && strong_new && (old->vol || nw->vol)) r.flags |= GR_RACE_VOLATILE;
    }
    if (h->on_race) h->on_race(h->user, &r);
}

static bool list_push(gr_hb *h, acc_list *l, const hb_acc *x) {
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 2;
        hb_acc *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            h->oom = true;
            return false;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *x;
    return true;
}

/* Checks one byte; `seen` holds the signatures already reported for this access. */
static void check_byte(gr_hb *h, hb_cell *c, const hb_acc *nw, const gr_access *a, uint64_t addr,
                       uint32_t *seen, uint32_t *nseen) {
    const vclock *vc = &h->threads[nw->thread].vc;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < c->acc.n; i++) {
        hb_acc *old = &c->acc.v[i];
        bool ordered = old->thread == nw->thread || vc_get(h, vc, old->thread) >= old->clock;
        if (!ordered && (old->write || nw->write) && !atomic_pair_ok(h, old, nw)) {
            bool dup = false;
            for (uint32_t s = 0; s < *nseen; s++) dup |= seen[s] == old->instr;
            if (!dup) {
                if (*nseen < 8) seen[(*nseen)++] = old->instr;
                report(h, old, nw, a, addr);
            }
        }
        if (ordered && covered_by(h, old, nw)) continue;
        c->acc.v[keep++] = *old;
    }
    c->acc.n = keep;
    list_push(h, &c->acc, nw);
}

bool gr_hb_access(gr_hb *h, const gr_access *a, gr_error *err) {
    if (a->space != GR_SPACE_GLOBAL && a->space != GR_SPACE_SHARED) return true;
    if (!check_thread(h, a->thread, err)) return false;
    if (a->size == 0 || a->size > 16)
        return gr_fail(err, GR_ERR_INTERNAL, "access of %u bytes", a->size);
    uint32_t t = a->thread, block = t / h->tpb;
    hb_thread *th = &h->threads[t];
    bool atomic = a->kind == GR_ACCESS_ATOMIC;
    if (atomic && a->scope == GR_SCOPE_CTA) start_widened(h);
    bool vol = !atomic && (a->flags & GR_ACCESS_VOLATILE);
    bool reads = a->kind == GR_ACCESS_READ || (atomic && a->op != GR_ATOM_ST && a->op != GR_ATOM_RED);
    bool writes = a->kind == GR_ACCESS_WRITE || (atomic && a->op != GR_ATOM_LD);
    uint8_t scope = atomic && a->scope == GR_SCOPE_CTA && !h->widened ? 0 : 1; /* volatile: system */
    hb_acc nw = {.thread = t, .clock = clock_of(h, t), .instr = a->instr, .write = writes,
                 .atomic = atomic, .scope = scope, .vol = vol};
    uint32_t sblock = a->space == GR_SPACE_SHARED ? block : 0;
    uint32_t seen[8], nseen = 0;
    for (uint32_t i = 0; i < a->size && !h->widened; i++) {
        loc_key k = {.addr = a->addr + i, .block = sblock, .space = a->space};
        hb_cell *c = cell_for(h, &k);
        if (!c) return oom_error(h, err);
        check_byte(h, c, &nw, a, a->addr + i, seen, &nseen);
    }

    /* Release/acquire through this location (keyed by its first byte). */
    bool strong = atomic || vol;
    loc_key k = {.addr = a->addr, .block = sblock, .space = a->space};
    if (strong && reads) {
        sync_obj *s = sync_for(h, &k, false);
        bool acq = atomic && (a->sem == GR_SEM_ACQUIRE || a->sem == GR_SEM_ACQ_REL);
        if (s) {
            if (acq) sync_acquire(h, &th->vc, s, block, scope);
            /* A later fence of scope >= sc acquires what this strong read saw. */
            for (uint8_t sc = 0; sc <= scope; sc++) sync_acquire(h, &th->pending[sc], s, block, sc);
        }
        if (acq && scope == 0) th->cta_acquire = 1;
        th->strong_read = 1;
    }
    if (writes) {
        bool rmw = atomic && reads;
        bool rel = atomic && (a->sem == GR_SEM_RELEASE || a->sem == GR_SEM_ACQ_REL);
        bool fenced = strong && (th->has_fence[0] || th->has_fence[1]);
        sync_obj *s = sync_for(h, &k, rel || fenced);
        if (s) {
            /* A non-RMW write ends the release sequence; an RMW continues it. */
            if (!rmw) sync_clear(h, s);
            if (rel) {
                sync_add(h, s, block, scope, &th->vc);
                if (scope == 0) h->block_cta_release[block] = 1;
            } else if (strong) {
                for (uint8_t sc = 0; sc <= scope; sc++)
                    if (th->has_fence[sc]) {
                        sync_add(h, s, block, sc, &th->rel_fence[sc]);
                        if (sc == 0 && !th->has_fence[1]) h->block_cta_release[block] = 1;
                    }
            }
        }
        if (rel) tick(h, t);
    }
    if (h->wide_active && !gr_hb_access(h->wide, a, err)) return false;
    return oom_error(h, err);
}

/* ---- synchronization ---- */

static void fence(gr_hb *h, uint32_t t, uint8_t scope) {
    hb_thread *th = &h->threads[t];
    /* Acquire side: releases seen by earlier strong reads of sufficient scope. */
    for (uint8_t sc = 0; sc <= scope; sc++) vc_join(h, &th->vc, &th->pending[sc]);
    if (scope == 0 && th->strong_read) th->cta_acquire = 1;
    /* Release side: remember what the thread knows now for later strong writes. */
    for (uint8_t sc = 0; sc <= scope; sc++) {
        vc_copy(h, &th->rel_fence[sc], &th->vc);
        th->has_fence[sc] = 1;
    }
    tick(h, t);
}

static void warp_sync(gr_hb *h, uint32_t block, uint32_t warp, uint32_t mask) {
    uint32_t base = block * h->tpb + warp * h->ws;
    uint32_t lanes = h->ws;
    if (warp * h->ws + lanes > h->tpb) lanes = h->tpb - warp * h->ws;
    vclock joined;
    if (!vc_init(h, &joined)) return;
    for (uint32_t l = 0; l < lanes; l++)
        if (mask >> l & 1u) vc_join(h, &joined, &h->threads[base + l].vc);
    for (uint32_t l = 0; l < lanes; l++) {
        if (!(mask >> l & 1u)) continue;
        vc_join(h, &h->threads[base + l].vc, &joined);
        tick(h, base + l);
    }
    vc_free(h, &joined);
}

static bool warp_event(gr_hb *h, const gr_event *ev, gr_error *err) {
    if (ev->u.warp.block >= h->nblocks || ev->u.warp.warp >= h->wpb)
        return gr_fail(err, GR_ERR_INTERNAL, "warp event names block %u warp %u", ev->u.warp.block,
                       ev->u.warp.warp);
    warp_sync(h, ev->u.warp.block, ev->u.warp.warp, ev->u.warp.mask);
    return oom_error(h, err);
}

/* Feeds a synchronization event (not an access: gr_hb_access forwards those itself) to the
 * widened companion too. */
static bool also_widened(gr_hb *h, bool ok, const gr_event *ev, gr_error *err) {
    if (!ok || !h->wide_active) return ok;
    if (ev->type == GR_EV_KERNEL_END) {
        h->wide_active = false; /* the next launch starts it again from a copy */
        return true;
    }
    return gr_hb_event(h->wide, ev, err);
}

static bool hb_event(gr_hb *h, const gr_event *ev, gr_error *err);

bool gr_hb_event(gr_hb *h, const gr_event *ev, gr_error *err) {
    if (ev->type == GR_EV_ACCESS) return gr_hb_access(h, &ev->u.access, err);
    if (ev->type == GR_EV_FENCE && ev->u.fence.scope == GR_SCOPE_CTA) start_widened(h);
    return also_widened(h, hb_event(h, ev, err), ev, err);
}

static bool hb_event(gr_hb *h, const gr_event *ev, gr_error *err) {
    switch ((gr_event_type)ev->type) {
    case GR_EV_ACCESS: return gr_hb_access(h, &ev->u.access, err);
    case GR_EV_BARRIER_ARRIVE: {
        uint32_t t = ev->u.arrive.thread;
        if (!check_thread(h, t, err)) return false;
        if (ev->u.arrive.barrier >= MAX_BARRIERS)
            return gr_fail(err, GR_ERR_INTERNAL, "barrier id %u out of range", ev->u.arrive.barrier);
        hb_barrier *b = &h->barriers[(t / h->tpb) * MAX_BARRIERS + ev->u.arrive.barrier];
        vc_join(h, &b->acc, &h->threads[t].vc);
        b->arrived++;
        if (ev->u.arrive.waits && b->nwait < h->tpb) b->waiters[b->nwait++] = t;
        tick(h, t);
        return oom_error(h, err);
    }
    case GR_EV_BARRIER_COMPLETE: {
        if (ev->u.complete.block >= h->nblocks || ev->u.complete.barrier >= MAX_BARRIERS)
            return gr_fail(err, GR_ERR_INTERNAL, "barrier completion names block %u barrier %u",
                           ev->u.complete.block, ev->u.complete.barrier);
        hb_barrier *b = &h->barriers[ev->u.complete.block * MAX_BARRIERS + ev->u.complete.barrier];
        if (b->arrived == 0)
            return gr_fail(err, GR_ERR_INTERNAL, "barrier %u of block %u completes with no arrival",
                           ev->u.complete.barrier, ev->u.complete.block);
        for (uint32_t i = 0; i < b->nwait; i++) vc_join(h, &h->threads[b->waiters[i]].vc, &b->acc);
        vc_clear(h, &b->acc);
        b->nwait = b->arrived = 0;
        return oom_error(h, err);
    }
    case GR_EV_WARP_STEP:
        if (!h->lockstep) return true;
        /* In lockstep a converged step synchronizes its lanes, like a warp sync. */
        return warp_event(h, ev, err);
    case GR_EV_WARP_SYNC:
        return warp_event(h, ev, err);
    case GR_EV_FENCE:
        if (!check_thread(h, ev->u.fence.thread, err)) return false;
        fence(h, ev->u.fence.thread, ev->u.fence.scope == GR_SCOPE_CTA && !h->widened ? 0 : 1);
        return oom_error(h, err);
    case GR_EV_THREAD_EXIT:
        if (!check_thread(h, ev->u.exit.thread, err)) return false;
        h->threads[ev->u.exit.thread].exited = 1;
        return true;
    case GR_EV_KERNEL_END:
        reset_all(h);
        return oom_error(h, err);
    }
    return gr_fail(err, GR_ERR_INTERNAL, "unknown event type %u", ev->type);
}

/* ---- snapshots: copying a detector and describing its state canonically ----
 *
 * For state-space exploration (tests/oracle_deep): a search keeps one detector per depth,
 * copies the parent's state into the child before feeding a step, and merges prefixes whose
 * canonical descriptions (and schedules) are equal. */

/* vc_copy() for snapshots: segment by segment, allocating only where src has one. */
static void vc_assign(gr_hb *h, vclock *dst, const vclock *src) {
    for (uint32_t b = 0; b < h->nblocks; b++) {
        if (src->seg[b]) {
            uint32_t *d = vc_seg(h, dst, b);
            if (d) memcpy(d, src->seg[b], h->tpb * sizeof *d);
        } else if (dst->seg[b]) {
            memset(dst->seg[b], 0, h->tpb * sizeof *dst->seg[b]);
        }
    }
}

static bool acc_list_assign(gr_hb *h, acc_list *dst, const acc_list *src) {
    if (dst->cap < src->n) {
        hb_acc *v = realloc(dst->v, src->n * sizeof *v);
        if (!v) {
            h->oom = true;
            return false;
        }
        dst->v = v;
        dst->cap = src->n;
    }
    if (src->n) memcpy(dst->v, src->v, src->n * sizeof *src->v);
    dst->n = src->n;
    return true;
}

static bool map_assign(gr_hb *h, loc_map *dst, const loc_map *src) {
    if (dst->cap != src->cap) {
        loc_key *keys = src->cap ? malloc(src->cap * sizeof *keys) : NULL;
        uint32_t *vals = src->cap ? malloc(src->cap * sizeof *vals) : NULL;
        if (src->cap && (!keys || !vals)) {
            free(keys);
            free(vals);
            h->oom = true;
            return false;
        }
        map_free(dst);
        dst->keys = keys;
        dst->vals = vals;
        dst->cap = src->cap;
    }
    if (src->cap) {
        memcpy(dst->keys, src->keys, src->cap * sizeof *src->keys);
        memcpy(dst->vals, src->vals, src->cap * sizeof *src->vals);
    }
    dst->n = src->n;
    return true;
}

/* Copies release entries; entries below `n` own a vector clock, the others none. */
static bool sync_assign(gr_hb *h, sync_obj *dst, const sync_obj *src) {
    while (dst->n > src->n) vc_free(h, &dst->e[--dst->n].vc);
    if (dst->cap < src->n) {
        rel_entry *e = realloc(dst->e, src->n * sizeof *e);
        if (!e) {
            h->oom = true;
            return false;
        }
        dst->e = e;
        dst->cap = src->n;
    }
    for (uint32_t i = 0; i < src->n; i++) {
        if (i >= dst->n) {
            if (!vc_init(h, &dst->e[i].vc)) return false;
            dst->n = i + 1;
        }
        dst->e[i].block = src->e[i].block;
        dst->e[i].scope = src->e[i].scope;
        vc_assign(h, &dst->e[i].vc, &src->e[i].vc);
    }
    return !h->oom;
}

static bool same_shape(const gr_hb *a, const gr_hb *b) {
    return a->tpb == b->tpb && a->ws == b->ws && a->nblocks == b->nblocks &&
           a->lockstep == b->lockstep && a->widened == b->widened;
}

bool gr_hb_copy(gr_hb *dst, const gr_hb *src, gr_error *err) {
    if (dst == src) return true;
    if (!same_shape(dst, src))
        return gr_fail(err, GR_ERR_INTERNAL,
                       "copying a happens-before detector into one of another launch shape");
    for (uint32_t t = 0; t < src->nthreads; t++) {
        const hb_thread *s = &src->threads[t];
        hb_thread *d = &dst->threads[t];
        vc_assign(dst, &d->vc, &s->vc);
        for (int sc = 0; sc < 2; sc++) {
            vc_assign(dst, &d->rel_fence[sc], &s->rel_fence[sc]);
            vc_assign(dst, &d->pending[sc], &s->pending[sc]);
            d->has_fence[sc] = s->has_fence[sc];
        }
        d->strong_read = s->strong_read;
        d->cta_acquire = s->cta_acquire;
        d->exited = s->exited;
    }
    for (uint32_t i = 0; i < src->nblocks * MAX_BARRIERS; i++) {
        const hb_barrier *s = &src->barriers[i];
        hb_barrier *d = &dst->barriers[i];
        /* An instance without arrivals has an empty (all-zero) clock and no waiters. */
        if (!s->arrived && !d->arrived) continue;
        vc_assign(dst, &d->acc, &s->acc);
        memcpy(d->waiters, s->waiters, s->nwait * sizeof *s->waiters);
        d->nwait = s->nwait;
        d->arrived = s->arrived;
    }
    memcpy(dst->block_cta_release, src->block_cta_release, src->nblocks);

    /* Cells below ncells own their access list; the others own nothing. */
    for (size_t i = src->ncells; i < dst->ncells; i++) free(dst->cells[i].acc.v);
    if (dst->ncells > src->ncells) dst->ncells = src->ncells;
    if (dst->cap_cells < src->ncells) {
        hb_cell *cells = realloc(dst->cells, src->ncells * sizeof *cells);
        if (!cells) {
            dst->oom = true;
            return oom_error(dst, err);
        }
        dst->cells = cells;
        dst->cap_cells = src->ncells;
    }
    for (size_t i = dst->ncells; i < src->ncells; i++) memset(&dst->cells[i], 0, sizeof dst->cells[i]);
    dst->ncells = src->ncells;
    for (size_t i = 0; i < src->ncells; i++)
        if (!acc_list_assign(dst, &dst->cells[i].acc, &src->cells[i].acc)) return oom_error(dst, err);
    if (!map_assign(dst, &dst->cells_map, &src->cells_map)) return oom_error(dst, err);

    /* Release locations likewise. */
    for (size_t i = src->nsyncs; i < dst->nsyncs; i++) {
        sync_clear(dst, &dst->syncs[i]);
        free(dst->syncs[i].e);
    }
    if (dst->nsyncs > src->nsyncs) dst->nsyncs = src->nsyncs;
    if (dst->cap_syncs < src->nsyncs) {
        sync_obj *syncs = realloc(dst->syncs, src->nsyncs * sizeof *syncs);
        if (!syncs) {
            dst->oom = true;
            return oom_error(dst, err);
        }
        dst->syncs = syncs;
        dst->cap_syncs = src->nsyncs;
    }
    for (size_t i = dst->nsyncs; i < src->nsyncs; i++) memset(&dst->syncs[i], 0, sizeof dst->syncs[i]);
    dst->nsyncs = src->nsyncs;
    for (size_t i = 0; i < src->nsyncs; i++)
        if (!sync_assign(dst, &dst->syncs[i], &src->syncs[i])) return oom_error(dst, err);
    if (!map_assign(dst, &dst->sync_map, &src->sync_map)) return oom_error(dst, err);

    /* The widened companion matters only while it follows the launch. */
    dst->wide_active = src->wide_active;
    if (src->wide_active) {
        if (!dst->wide) {
            dst->wide = gr_hb_create(&dst->geom, dst->lockstep, NULL, NULL, err);
            if (!dst->wide) return false;
            dst->wide->widened = true;
        }
        if (!gr_hb_copy(dst->wide, src->wide, err)) return false;
    }
    dst->oom = src->oom;
    return oom_error(dst, err);
}

gr_hb *gr_hb_clone(const gr_hb *src, gr_race_fn on_race, void *user, gr_error *err) {
    gr_hb *h = gr_hb_create(&src->geom, src->lockstep, on_race, user, err);
    if (h && !gr_hb_copy(h, src, err)) {
        gr_hb_destroy(h);
        return NULL;
    }
    return h;
}

/* The canonical description. Clock values of one thread are compared only with each other
 * (vc_get(v, u) >= clock of an access by u) and grow only by the thread's own tick past all of
 * them, so replacing each thread's values by their ranks (0 stays 0) keeps every future
 * verdict: the description lists ranks. Launches too large for the fixed rank tables list
 * absolute values instead (still exact, merely less merging). */
#define CANON_MAX_THREADS 16u
#define CANON_MAX_VALUES 48u

typedef struct canon {
    uint64_t *out;
    size_t cap, n;
    bool absolute;
    uint32_t nvals[CANON_MAX_THREADS];
    uint32_t vals[CANON_MAX_THREADS][CANON_MAX_VALUES]; /* sorted, distinct, nonzero */
} canon;

static void canon_put(canon *c, uint64_t w) {
    if (c->n < c->cap) c->out[c->n] = w;
    c->n++;
}

static void canon_note(canon *c, uint32_t thread, uint32_t value) {
    if (c->absolute || value == 0) return;
    uint32_t *v = c->vals[thread], n = c->nvals[thread], i = 0;
    while (i < n && v[i] < value) i++;
    if (i < n && v[i] == value) return;
    if (n == CANON_MAX_VALUES) {
        c->absolute = true;
        return;
    }
    memmove(&v[i + 1], &v[i], (n - i) * sizeof *v);
    v[i] = value;
    c->nvals[thread] = n + 1;
}

static uint32_t canon_rank(const canon *c, uint32_t thread, uint32_t value) {
    if (c->absolute || value == 0) return value;
    uint32_t i = 0;
    while (c->vals[thread][i] != value) i++;
    return i + 1;
}

static void canon_note_vc(canon *c, const gr_hb *h, const vclock *v) {
    for (uint32_t b = 0; b < h->nblocks; b++)
        if (v->seg[b])
            for (uint32_t i = 0; i < h->tpb; i++) canon_note(c, b * h->tpb + i, v->seg[b][i]);
}

static void canon_put_vc(canon *c, const gr_hb *h, const vclock *v) {
    /* Four 16-bit ranks per word (ranks are small; absolute values take a word each). */
    uint64_t word = 0;
    uint32_t k = 0;
    for (uint32_t t = 0; t < h->nthreads; t++) {
        uint64_t r = canon_rank(c, t, vc_get(h, v, t));
        if (c->absolute) {
            canon_put(c, r);
            continue;
        }
        word |= r << (16 * k);
        if (++k == 4) {
            canon_put(c, word);
            word = 0;
            k = 0;
        }
    }
    if (k) canon_put(c, word);
}

/* Every clock value of the synchronization state (and of the access lists, unless widened). */
static void canon_note_all(canon *c, const gr_hb *h) {
    for (uint32_t t = 0; t < h->nthreads; t++) {
        const hb_thread *th = &h->threads[t];
        canon_note_vc(c, h, &th->vc);
        for (int sc = 0; sc < 2; sc++) {
            canon_note_vc(c, h, &th->rel_fence[sc]);
            canon_note_vc(c, h, &th->pending[sc]);
        }
    }
    for (uint32_t i = 0; i < h->nblocks * MAX_BARRIERS; i++)
        if (h->barriers[i].arrived) canon_note_vc(c, h, &h->barriers[i].acc);
    for (size_t i = 0; i < h->nsyncs; i++)
        for (uint32_t j = 0; j < h->syncs[i].n; j++) canon_note_vc(c, h, &h->syncs[i].e[j].vc);
    for (size_t i = 0; i < h->ncells; i++)
        for (uint32_t j = 0; j < h->cells[i].acc.n; j++)
            canon_note(c, h->cells[i].acc.v[j].thread, h->cells[i].acc.v[j].clock);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_key_slot(const void *a, const void *b, const loc_map *m) {
    const loc_key *x = &m->keys[*(const size_t *)a], *y = &m->keys[*(const size_t *)b];
    if (x->space != y->space) return x->space < y->space ? -1 : 1;
    if (x->block != y->block) return x->block < y->block ? -1 : 1;
    return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The map's occupied slots whose objects are not empty, in key order (insertion sort: the
 * maps of the small launches this is meant for hold a few keys). Returns the count; slots
 * beyond `cap` are dropped and flagged through *overflow. */
static size_t sorted_slots(const loc_map *m, bool (*nonempty)(const gr_hb *, uint32_t),
                           const gr_hb *h, size_t *slots, size_t cap, bool *overflow) {
    static const uint32_t zeros[16];
    size_t n = 0;
    for (size_t s = 0; s < m->cap; s++) {
        /* Skip empty runs of slots 16 at a time (the maps are mostly empty). */
        if (s % 16 == 0 && s + 16 <= m->cap && !memcmp(&m->vals[s], zeros, sizeof zeros)) {
            s += 15;
            continue;
        }
        if (!m->vals[s] || !nonempty(h, m->vals[s] - 1)) continue;
        if (n == cap) {
            *overflow = true;
            break;
        }
        size_t i = n++;
        while (i > 0 && cmp_key_slot(&slots[i - 1], &s, m) > 0) {
            slots[i] = slots[i - 1];
            i--;
        }
        slots[i] = s;
    }
    return n;
}

static bool cell_nonempty(const gr_hb *h, uint32_t i) { return h->cells[i].acc.n > 0; }
static bool sync_nonempty(const gr_hb *h, uint32_t i) { return h->syncs[i].n > 0; }

static void canon_put_key(canon *c, const loc_key *k) {
    canon_put(c, k->addr);
    canon_put(c, (uint64_t)k->block << 8 | k->space);
}

#define CANON_MAX_KEYS 256u
#define CANON_MAX_LIST 64u

/* The synchronization part (threads, barriers, block flags, release locations). */
static void canon_put_sync(canon *c, const gr_hb *h, bool *overflow) {
    for (uint32_t t = 0; t < h->nthreads; t++) {
        const hb_thread *th = &h->threads[t];
        canon_put(c, (uint64_t)th->has_fence[0] | (uint64_t)th->has_fence[1] << 1 |
                         (uint64_t)th->strong_read << 2 | (uint64_t)th->cta_acquire << 3 |
                         (uint64_t)th->exited << 4);
        canon_put_vc(c, h, &th->vc);
        for (int sc = 0; sc < 2; sc++) {
            canon_put_vc(c, h, &th->rel_fence[sc]);
            canon_put_vc(c, h, &th->pending[sc]);
        }
    }
    for (uint32_t i = 0; i < h->nblocks * MAX_BARRIERS; i++) {
        const hb_barrier *b = &h->barriers[i];
        if (!b->arrived && !b->nwait) continue;
        canon_put(c, 1ull << 63 | (uint64_t)i << 40 | (uint64_t)b->arrived << 20 | b->nwait);
        uint64_t waiters[CANON_MAX_LIST];
        uint32_t n = b->nwait < CANON_MAX_LIST ? b->nwait : CANON_MAX_LIST;
        if (n < b->nwait) *overflow = true;
        for (uint32_t k = 0; k < n; k++) waiters[k] = b->waiters[k];
        qsort(waiters, n, sizeof *waiters, cmp_u64);
        for (uint32_t k = 0; k < n; k++) canon_put(c, waiters[k]);
        canon_put_vc(c, h, &b->acc);
    }
    for (uint32_t b = 0; b < h->nblocks; b++) canon_put(c, h->block_cta_release[b]);
    size_t slots[CANON_MAX_KEYS];
    size_t n = sorted_slots(&h->sync_map, sync_nonempty, h, slots, CANON_MAX_KEYS, overflow);
    canon_put(c, n);
    for (size_t i = 0; i < n; i++) {
        const sync_obj *s = &h->syncs[h->sync_map.vals[slots[i]] - 1];
        canon_put_key(c, &h->sync_map.keys[slots[i]]);
        /* Entries are distinct by (block, scope); list them in that order. */
        uint64_t order[CANON_MAX_LIST];
        uint32_t m = s->n < CANON_MAX_LIST ? s->n : CANON_MAX_LIST;
        if (m < s->n) *overflow = true;
        for (uint32_t j = 0; j < m; j++)
            order[j] = (uint64_t)s->e[j].block << 40 | (uint64_t)s->e[j].scope << 32 | j;
        qsort(order, m, sizeof *order, cmp_u64);
        canon_put(c, m);
        for (uint32_t j = 0; j < m; j++) {
            const rel_entry *e = &s->e[order[j] & 0xffffffffu];
            canon_put(c, order[j] >> 32);
            canon_put_vc(c, h, &e->vc);
        }
    }
}

size_t gr_hb_canonical_state(const gr_hb *h, uint64_t *out, size_t cap) {
    canon c;
    memset(c.nvals, 0, sizeof c.nvals);
    c.out = out;
    c.cap = cap;
    c.n = 0;
    c.absolute = h->nthreads > CANON_MAX_THREADS;
    bool wide = h->wide_active && h->wide;
    canon_note_all(&c, h);
    if (wide) canon_note_all(&c, h->wide);
    bool overflow = false;
    canon_put(&c, 0x4842u); /* a tag: "HB" */
    canon_put(&c, (uint64_t)h->nthreads << 8 | (uint64_t)wide << 1 | c.absolute);
    canon_put_sync(&c, h, &overflow);
    size_t slots[CANON_MAX_KEYS];
    size_t n = sorted_slots(&h->cells_map, cell_nonempty, h, slots, CANON_MAX_KEYS, &overflow);
    canon_put(&c, n);
    for (size_t i = 0; i < n; i++) {
        const acc_list *l = &h->cells[h->cells_map.vals[slots[i]] - 1].acc;
        canon_put_key(&c, &h->cells_map.keys[slots[i]]);
        /* The list's order does not matter (every entry is checked, reports are
         * deduplicated per partner): list the entries sorted. Instruction ids are left out. */
        uint64_t entries[CANON_MAX_LIST];
        uint32_t m = l->n < CANON_MAX_LIST ? l->n : CANON_MAX_LIST;
        if (m < l->n) overflow = true;
        for (uint32_t j = 0; j < m; j++) {
            const hb_acc *a = &l->v[j];
            uint32_t rank = canon_rank(&c, a->thread, a->clock);
            if (rank > 0xffffffu || a->thread > 0xffffffu) overflow = true;
            entries[j] = (uint64_t)a->thread << 40 | (uint64_t)(rank & 0xffffffu) << 16 |
                         (uint64_t)a->write | (uint64_t)a->atomic << 1 | (uint64_t)a->scope << 2 |
                         (uint64_t)a->vol << 4;
        }
        qsort(entries, m, sizeof *entries, cmp_u64);
        canon_put(&c, m);
        for (uint32_t j = 0; j < m; j++) canon_put(&c, entries[j]);
    }
    if (wide) canon_put_sync(&c, h->wide, &overflow);
    /* Too large for the fixed tables: no description rather than a wrong match. */
    return overflow ? 0 : c.n;
}
