/* hb.c — vector-clock happens-before detector.
 *
 * Representation. A vector clock is a sorted list of (block, segment) pairs; a segment holds the
 * clocks of one block's threads and is shared by reference count, copied only when a holder
 * that shares it must raise a value (copy-on-write). A thread's own clock lives beside its
 * vector clock (`own`), so ticking copies nothing, and the threads of a block leaving a barrier
 * all take the barrier's clock by reference. Each segment has an id, fresh at every change, and
 * remembers the id of the segment it was copied from (`origin`): a segment holds at least the
 * values of its origin, which lets a join take or skip a segment without comparing clocks.
 * Access histories are kept per 4-byte granule, in pages of granules; each entry records the
 * bytes of the granule it touched, and the per-byte verdicts are those of one history per byte.
 *
 * Memory accounting. Every allocation goes through hb_mem, which counts bytes (and refuses those
 * over the limit); the widened companion counts into its parent's hb_mem, with which it shares
 * segments.
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
#define PAGE_WORDS 64u /* granules per page of access histories (256 bytes of user memory) */
#define HISTORY_GRACE (1ull << 26) /* comparisons free of the history budget by default */

/* ---- memory accounting ---- */

typedef struct hb_mem {
    size_t used, peak, limit; /* limit 0: none */
    uint64_t next_id;         /* segment ids, never reused */
    bool over;                /* an allocation would have passed the limit */
    bool oom;                 /* the system refused one */
} hb_mem;

static void *mem_get(hb_mem *m, size_t n, bool zero) {
    if (m->over || m->oom) return NULL;
    if (m->limit && (n > m->limit || m->used > m->limit - n)) {
        m->over = true;
        return NULL;
    }
    void *p = zero ? calloc(1, n) : malloc(n);
    if (!p) {
        m->oom = true;
        return NULL;
    }
    m->used += n;
    if (m->used > m->peak) m->peak = m->used;
    return p;
}

static void mem_put(hb_mem *m, void *p, size_t n) {
    if (!p) return;
    free(p);
    m->used -= n;
}

/* Grows an array of `elem`-byte elements from `old` to `cap` elements (contents kept). */
static void *mem_grow(hb_mem *m, void *p, size_t old, size_t cap, size_t elem) {
    void *q = mem_get(m, cap * elem, false);
    if (!q) return NULL;
    if (old) memcpy(q, p, old * elem);
    mem_put(m, p, old * elem);
    return q;
}

/* ---- vector clocks ---- */

typedef struct vc_seg {
    uint32_t refs;
    uint64_t id;
    uint64_t origin; /* id of the segment this one was copied from (it holds at least its values) */
    uint32_t c[];    /* one clock per thread of the block */
} vc_seg;

typedef struct vc_ent {
    uint32_t block;
    vc_seg *seg;
} vc_ent;

/* Entries sorted by block; up to one inline (cap <= 1), more on the heap. */
typedef struct vclock {
    uint32_t n, cap;
    union {
        vc_ent one;
        vc_ent *many;
    } u;
} vclock;

/* An access that may still race. */
typedef struct hb_acc {
    uint32_t thread, clock, instr;
    uint8_t write : 1, atomic : 1, scope : 1, vol : 1;
    uint8_t ordered : 1, racy : 1; /* scratch of check_granule() */
    uint8_t bytes;                 /* bit i: the access touched byte i of the granule */
} hb_acc;

typedef struct hb_cell {
    uint32_t n, cap; /* cap <= 1: the one entry is inline */
    union {
        hb_acc one;
        hb_acc *many;
    } u;
} hb_cell;

_Static_assert(PAGE_WORDS == 64, "hb_page.used has one bit per granule");

typedef struct hb_page {
    uint64_t used; /* bit i: cells[i] holds entries (PAGE_WORDS is 64) */
    hb_cell cells[PAGE_WORDS];
} hb_page;

/* A release recorded on a location: who released at which scope, and what they knew. */
typedef struct rel_entry {
    uint32_t block;
    uint8_t scope; /* 0 cta, 1 gpu */
    vclock vc;
} rel_entry;

typedef struct sync_obj {
    rel_entry *e;
    uint32_t n, cap;
} sync_obj;

/* A thread's fence state, allocated at its first fence or at a strong read that may pair with
 * a release (most threads of most kernels never need it). */
typedef struct hb_fences {
    vclock rel_fence[2];  /* what it knew at its last fence of scope >= cta / >= gpu ... */
    uint32_t rel_own[2];  /* ... and its own clock then */
    vclock pending[2];    /* releases seen by strong reads, acquired by a later fence */
} hb_fences;

typedef struct hb_thread {
    vclock vc;         /* what it knows of the other threads */
    uint32_t own;      /* its clock (its entry of its own vector clock) */
    uint32_t version;  /* changes whenever vc changes (a barrier's waiters compare it) */
    hb_fences *f;
    uint8_t has_fence[2];
    uint8_t strong_read;  /* performed a strong read (a later fence may acquire) */
    uint8_t cta_acquire;  /* performed a block-scope acquire (for the scoped diagnosis) */
    uint8_t exited;
    uint8_t settled;      /* exited, and a warp sync since passed on all it did (lockstep) */
} hb_thread;

typedef struct hb_waiter {
    uint32_t thread, version; /* the thread's vc version when it arrived */
} hb_waiter;

typedef struct hb_barrier {
    vclock acc;
    hb_waiter *waiters;
    uint32_t nwait, cap_wait;
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
    uint32_t *vals; /* index + 1; 0 empty */
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
    hb_mem own_mem;
    hb_mem *mem;   /* &own_mem, or the parent's for the companion */
    const gr_granule_set *track; /* NULL: every granule */
    uint32_t history_budget;     /* comparisons per access on average (0: no bound) ... */
    uint64_t history_grace;      /* ... after this many */
    uint64_t compared, accesses; /* ... counted here */
    bool too_slow;               /* the budget was passed */
    hb_thread *threads;
    hb_barrier *barriers;  /* nblocks * MAX_BARRIERS */
    uint8_t *block_cta_release;  /* a block-scope release happened in the block */
    loc_map page_map;      /* key: (page index, block, space) */
    hb_page **pages;
    loc_key *page_keys;    /* pages[i]'s key */
    size_t npages, cap_pages;
    loc_key last_key;      /* the page found last (accesses come in runs) */
    hb_page *last_page;
    loc_map sync_map;
    sync_obj *syncs;
    size_t nsyncs, cap_syncs;
};

static bool failed(const gr_hb *h) { return h->mem->over || h->mem->oom || h->too_slow; }

static size_t seg_bytes(const gr_hb *h) { return sizeof(vc_seg) + h->tpb * sizeof(uint32_t); }

static vc_seg *seg_new(gr_hb *h) {
    vc_seg *s = mem_get(h->mem, seg_bytes(h), true);
    if (!s) return NULL;
    s->refs = 1;
    s->id = ++h->mem->next_id;
    return s;
}

static void seg_unref(gr_hb *h, vc_seg *s) {
    if (s && --s->refs == 0) mem_put(h->mem, s, seg_bytes(h));
}

static vc_ent *ents(vclock *v) { return v->cap > 1 ? v->u.many : &v->u.one; }
static const vc_ent *cents(const vclock *v) { return v->cap > 1 ? v->u.many : &v->u.one; }

/* Index of `block`'s entry, or where it would go (then *found is false). */
static uint32_t vc_find(const vclock *v, uint32_t block, bool *found) {
    const vc_ent *e = cents(v);
    uint32_t lo = 0, hi = v->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (e[mid].block < block) lo = mid + 1;
        else hi = mid;
    }
    *found = lo < v->n && e[lo].block == block;
    return lo;
}

/* Inserts (block, seg) at `pos`, taking over the caller's reference to seg. */
static bool vc_insert(gr_hb *h, vclock *v, uint32_t pos, uint32_t block, vc_seg *seg) {
    uint32_t room = v->cap > 1 ? v->cap : 1;
    if (v->n == room) {
        uint32_t cap = room < 4 ? 4 : room * 2;
        vc_ent *e = mem_get(h->mem, cap * sizeof *e, false);
        if (!e) {
            seg_unref(h, seg);
            return false;
        }
        memcpy(e, ents(v), v->n * sizeof *e);
        if (v->cap > 1) mem_put(h->mem, v->u.many, v->cap * sizeof *e);
        v->u.many = e;
        v->cap = cap;
    }
    vc_ent *e = ents(v);
    memmove(&e[pos + 1], &e[pos], (v->n - pos) * sizeof *e);
    e[pos] = (vc_ent){block, seg};
    v->n++;
    return true;
}

static uint32_t vc_get(const gr_hb *h, const vclock *v, uint32_t thread) {
    bool found;
    uint32_t i = vc_find(v, thread / h->tpb, &found);
    return found ? cents(v)[i].seg->c[thread % h->tpb] : 0;
}

/* The segment of entry `e`, made private to its vector clock (copied when shared); its id
 * changes, since the caller is about to raise a value. */
static vc_seg *seg_writable(gr_hb *h, vc_ent *e) {
    vc_seg *s = e->seg;
    if (s->refs == 1) {
        s->id = ++h->mem->next_id;
        return s;
    }
    vc_seg *c = mem_get(h->mem, seg_bytes(h), false);
    if (!c) return NULL;
    memcpy(c, s, seg_bytes(h));
    c->refs = 1;
    c->id = ++h->mem->next_id;
    c->origin = s->id;
    s->refs--;
    e->seg = c;
    return c;
}

/* v[thread] = max(v[thread], clock). */
static void vc_raise(gr_hb *h, vclock *v, uint32_t thread, uint32_t clock) {
    if (!clock) return;
    uint32_t b = thread / h->tpb, i = thread % h->tpb;
    bool found;
    uint32_t pos = vc_find(v, b, &found);
    if (!found) {
        vc_seg *s = seg_new(h);
        if (!s) return;
        s->c[i] = clock;
        vc_insert(h, v, pos, b, s);
        return;
    }
    vc_ent *e = &ents(v)[pos];
    if (e->seg->c[i] >= clock) return;
    vc_seg *s = seg_writable(h, e);
    if (s) s->c[i] = clock;
}

/* dst = max(dst, src); returns whether dst changed. */
static bool vc_join(gr_hb *h, vclock *dst, const vclock *src) {
    bool changed = false;
    for (uint32_t k = 0; k < src->n; k++) {
        vc_seg *s = cents(src)[k].seg;
        uint32_t b = cents(src)[k].block;
        bool found;
        uint32_t pos = vc_find(dst, b, &found);
        if (!found) {
            s->refs++;
            if (!vc_insert(h, dst, pos, b, s)) return changed;
            changed = true;
            continue;
        }
        vc_ent *e = &ents(dst)[pos];
        vc_seg *d = e->seg;
        if (d == s || d->origin == s->id) continue; /* dst holds at least src's values */
        if (s->origin == d->id) {                    /* src holds at least dst's values */
            s->refs++;
            seg_unref(h, d);
            e->seg = s;
            changed = true;
            continue;
        }
        uint32_t i = 0;
        while (i < h->tpb && s->c[i] <= d->c[i]) i++;
        if (i == h->tpb) continue;
        d = seg_writable(h, e);
        if (!d) return changed;
        for (; i < h->tpb; i++)
            if (s->c[i] > d->c[i]) d->c[i] = s->c[i];
        changed = true;
    }
    return changed;
}

static void vc_clear(gr_hb *h, vclock *v) {
    for (uint32_t k = 0; k < v->n; k++) seg_unref(h, ents(v)[k].seg);
    v->n = 0;
}

static void vc_free(gr_hb *h, vclock *v) {
    vc_clear(h, v);
    if (v->cap > 1) mem_put(h->mem, v->u.many, v->cap * sizeof(vc_ent));
    memset(v, 0, sizeof *v);
}

/* Whether a and b hold the same segments (then they are equal). */
static bool vc_same(const vclock *a, const vclock *b) {
    if (a->n != b->n) return false;
    for (uint32_t k = 0; k < a->n; k++)
        if (cents(a)[k].block != cents(b)[k].block || cents(a)[k].seg != cents(b)[k].seg)
            return false;
    return true;
}

/* dst = src, sharing src's segments. */
static void vc_copy(gr_hb *h, vclock *dst, const vclock *src) {
    if (dst == src) return;
    if (dst->n == src->n) {
        /* The same blocks (the common case: lanes and waiters taking a join they were part
         * of): swap segments in place. */
        vc_ent *d = ents(dst);
        const vc_ent *e = cents(src);
        uint32_t k = 0;
        while (k < src->n && d[k].block == e[k].block) k++;
        if (k == src->n) {
            for (k = 0; k < src->n; k++)
                if (d[k].seg != e[k].seg) {
                    e[k].seg->refs++;
                    seg_unref(h, d[k].seg);
                    d[k].seg = e[k].seg;
                }
            return;
        }
    }
    vc_clear(h, dst);
    for (uint32_t k = 0; k < src->n; k++) {
        vc_ent e = cents(src)[k];
        e.seg->refs++;
        if (!vc_insert(h, dst, k, e.block, e.seg)) return;
    }
}

/* What thread `t` knows of thread `u`. */
static uint32_t knows(const gr_hb *h, uint32_t t, uint32_t u) {
    const hb_thread *th = &h->threads[t];
    return u == t ? th->own : vc_get(h, &th->vc, u);
}

/* Thread t's vector clock joins `src`. */
static void thread_join(gr_hb *h, uint32_t t, const vclock *src) {
    if (vc_join(h, &h->threads[t].vc, src)) h->threads[t].version++;
}

/* dst = max(dst, the vector clock of thread t). */
static void join_thread_into(gr_hb *h, vclock *dst, uint32_t t) {
    vc_join(h, dst, &h->threads[t].vc);
    vc_raise(h, dst, t, h->threads[t].own);
}

static void tick(gr_hb *h, uint32_t thread) { h->threads[thread].own++; }

static hb_fences *fences_of(gr_hb *h, uint32_t t) {
    hb_thread *th = &h->threads[t];
    if (!th->f) th->f = mem_get(h->mem, sizeof *th->f, true);
    return th->f;
}

static void fences_free(gr_hb *h, hb_thread *th) {
    if (!th->f) return;
    for (int s = 0; s < 2; s++) {
        vc_free(h, &th->f->rel_fence[s]);
        vc_free(h, &th->f->pending[s]);
    }
    mem_put(h->mem, th->f, sizeof *th->f);
    th->f = NULL;
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
        loc_key *keys = mem_get(h->mem, cap * sizeof *keys, true);
        uint32_t *vals = keys ? mem_get(h->mem, cap * sizeof *vals, true) : NULL;
        if (!vals) {
            mem_put(h->mem, keys, cap * sizeof *keys);
            return UINT32_MAX;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->vals[i]) continue;
            size_t s = key_hash(&m->keys[i]) & (cap - 1);
            while (vals[s]) s = (s + 1) & (cap - 1);
            keys[s] = m->keys[i];
            vals[s] = m->vals[i];
        }
        mem_put(h->mem, m->keys, m->cap * sizeof *m->keys);
        mem_put(h->mem, m->vals, m->cap * sizeof *m->vals);
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

static void map_free(gr_hb *h, loc_map *m) {
    mem_put(h->mem, m->keys, m->cap * sizeof *m->keys);
    mem_put(h->mem, m->vals, m->cap * sizeof *m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- access histories ---- */

static hb_acc *cell_entries(hb_cell *c) { return c->cap > 1 ? c->u.many : &c->u.one; }
static const hb_acc *ccell_entries(const hb_cell *c) { return c->cap > 1 ? c->u.many : &c->u.one; }

static void cell_free(gr_hb *h, hb_cell *c) {
    if (c->cap > 1) mem_put(h->mem, c->u.many, c->cap * sizeof(hb_acc));
    memset(c, 0, sizeof *c);
}

static bool cell_push(gr_hb *h, hb_cell *c, const hb_acc *x) {
    uint32_t room = c->cap > 1 ? c->cap : 1;
    if (c->n == room) {
        uint32_t cap = room * 2;
        hb_acc *v = mem_get(h->mem, cap * sizeof *v, false);
        if (!v) return false;
        memcpy(v, cell_entries(c), c->n * sizeof *v);
        if (c->cap > 1) mem_put(h->mem, c->u.many, c->cap * sizeof *v);
        c->u.many = v;
        c->cap = cap;
    }
    cell_entries(c)[c->n++] = *x;
    return true;
}

static void pages_free(gr_hb *h) {
    for (size_t p = 0; p < h->npages; p++) {
        for (uint32_t i = 0; i < PAGE_WORDS; i++) cell_free(h, &h->pages[p]->cells[i]);
        mem_put(h->mem, h->pages[p], sizeof(hb_page));
    }
    h->npages = 0;
    h->last_page = NULL;
    map_clear(&h->page_map);
}

static loc_key page_key(uint8_t space, uint32_t block, uint64_t granule_addr) {
    return (loc_key){.addr = granule_addr / (4 * PAGE_WORDS), .block = block, .space = space};
}

/* The page for `k`, created (empty) when `create`. */
static hb_page *page_for(gr_hb *h, const loc_key *k, bool create) {
    if (h->last_page && key_eq(&h->last_key, k)) return h->last_page;
    uint32_t i = map_find(h, &h->page_map, k, 0);
    if (i == UINT32_MAX) {
        if (!create) return NULL;
        if (h->npages == h->cap_pages) {
            size_t cap = h->cap_pages ? h->cap_pages * 2 : 64;
            hb_page **p = mem_get(h->mem, cap * sizeof *p, false);
            loc_key *keys = p ? mem_get(h->mem, cap * sizeof *keys, false) : NULL;
            if (!keys) {
                mem_put(h->mem, p, cap * sizeof *p);
                return NULL;
            }
            if (h->npages) {
                memcpy(p, h->pages, h->npages * sizeof *p);
                memcpy(keys, h->page_keys, h->npages * sizeof *keys);
            }
            mem_put(h->mem, h->pages, h->cap_pages * sizeof *p);
            mem_put(h->mem, h->page_keys, h->cap_pages * sizeof *keys);
            h->pages = p;
            h->page_keys = keys;
            h->cap_pages = cap;
        }
        hb_page *pg = mem_get(h->mem, sizeof *pg, true);
        if (!pg) return NULL;
        i = map_find(h, &h->page_map, k, (uint32_t)h->npages + 1);
        if (i == UINT32_MAX) {
            mem_put(h->mem, pg, sizeof *pg);
            return NULL;
        }
        h->page_keys[h->npages] = *k;
        h->pages[h->npages++] = pg;
    }
    h->last_key = *k;
    h->last_page = h->pages[i];
    return h->last_page;
}

/* ---- release locations ---- */

static sync_obj *sync_for(gr_hb *h, const loc_key *k, bool create) {
    uint32_t i = map_find(h, &h->sync_map, k, 0);
    if (i != UINT32_MAX) return &h->syncs[i];
    if (!create) return NULL;
    if (h->nsyncs == h->cap_syncs) {
        size_t cap = h->cap_syncs ? h->cap_syncs * 2 : 64;
        sync_obj *s = mem_grow(h->mem, h->syncs, h->cap_syncs, cap, sizeof *s);
        if (!s) return NULL;
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

static void sync_free(gr_hb *h, sync_obj *s) {
    sync_clear(h, s);
    mem_put(h->mem, s->e, s->cap * sizeof *s->e);
    memset(s, 0, sizeof *s);
}

/* The release entry of `block` at `scope`, created empty when missing. */
static rel_entry *sync_entry(gr_hb *h, sync_obj *s, uint32_t block, uint8_t scope) {
    for (uint32_t i = 0; i < s->n; i++)
        if (s->e[i].block == block && s->e[i].scope == scope) return &s->e[i];
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 2;
        rel_entry *e = mem_grow(h->mem, s->e, s->cap, cap, sizeof *e);
        if (!e) return NULL;
        s->e = e;
        s->cap = cap;
    }
    rel_entry *e = &s->e[s->n++];
    memset(e, 0, sizeof *e);
    e->block = block;
    e->scope = scope;
    return e;
}

/* Adds to (or widens) the release entry of `block` at `scope` what `v` knows, `v` being a
 * vector clock whose entry for thread `owner` is `owner_clock`. */
static void sync_add(gr_hb *h, sync_obj *s, uint32_t block, uint8_t scope, const vclock *v,
                     uint32_t owner, uint32_t owner_clock) {
    rel_entry *e = sync_entry(h, s, block, scope);
    if (!e) return;
    vc_join(h, &e->vc, v);
    vc_raise(h, &e->vc, owner, owner_clock);
}

/* A scope covers a pair of threads when it is gpu-wide or they share a block. */
static bool covers(uint8_t scope, uint32_t block_a, uint32_t block_b) {
    return scope >= 1 || block_a == block_b;
}

/* Joins into `dst` the entries of `s` that an acquire at `scope` by a thread of `block` pairs
 * with: the release scope covers the acquirer and the acquire scope covers the releaser.
 * Returns whether dst changed. */
static bool sync_acquire(gr_hb *h, vclock *dst, const sync_obj *s, uint32_t block, uint8_t scope) {
    bool changed = false;
    for (uint32_t i = 0; i < s->n; i++)
        if (covers(s->e[i].scope, s->e[i].block, block) && covers(scope, block, s->e[i].block))
            changed |= vc_join(h, dst, &s->e[i].vc);
    return changed;
}

/* ---- life cycle ---- */

static void clear_syncs(gr_hb *h) {
    for (size_t i = 0; i < h->nsyncs; i++) sync_free(h, &h->syncs[i]);
    h->nsyncs = 0;
    map_clear(&h->sync_map);
}

static void reset_all(gr_hb *h) {
    for (uint32_t t = 0; t < h->nthreads; t++) {
        hb_thread *th = &h->threads[t];
        vc_clear(h, &th->vc);
        fences_free(h, th);
        th->has_fence[0] = th->has_fence[1] = 0;
        th->cta_acquire = 0;
        th->strong_read = 0;
        th->exited = 0;
        th->settled = 0;
        th->own = 1;
        th->version = 0;
    }
    for (uint32_t i = 0; i < h->nblocks * MAX_BARRIERS; i++) {
        vc_clear(h, &h->barriers[i].acc);
        h->barriers[i].nwait = h->barriers[i].arrived = 0;
    }
    memset(h->block_cta_release, 0, h->nblocks);
    pages_free(h);
    clear_syncs(h);
}

/* The limit error: what it was, for which launch. */
static bool limit_error(const gr_hb *h, gr_error *err) {
    return gr_fail(err, GR_ERR_UNSUPPORTED,
                   "the happens-before detector would need more than its memory limit of %zu MB "
                   "for this launch (%u block%s of %u threads)",
                   h->mem->limit >> 20, h->nblocks, h->nblocks == 1 ? "" : "s", h->tpb);
}

static bool oom_error(const gr_hb *h, gr_error *err) {
    if (h->mem->over) return limit_error(h, err);
    if (h->too_slow)
        return gr_fail(err, GR_ERR_UNSUPPORTED,
                       "the happens-before detector would compare each access with more than %u "
                       "earlier ones on average (%llu comparisons for %llu accesses): many "
                       "threads access the same bytes unordered",
                       h->history_budget, (unsigned long long)h->compared,
                       (unsigned long long)h->accesses);
    if (h->mem->oom)
        return gr_fail(err, GR_ERR_NOMEM, "out of memory in the happens-before detector");
    return true;
}

void gr_hb_destroy(gr_hb *h);

/* A detector whose allocations count into `mem` (NULL: its own, with `limit`). */
static gr_hb *hb_new(const gr_launch_geometry *geom, bool lockstep, hb_mem *mem, size_t limit,
                     gr_race_fn on_race, void *user, gr_error *err) {
    uint64_t tpb = gr_geom_threads_per_block(geom), nb = gr_geom_blocks(geom);
    if (tpb == 0 || nb == 0 || tpb * nb > UINT32_MAX / 2) {
        gr_fail(err, GR_ERR_USAGE, "launch geometry out of range for the happens-before detector");
        return NULL;
    }
    gr_hb *h = calloc(1, sizeof *h);
    if (!h) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory creating the happens-before detector");
        return NULL;
    }
    h->own_mem.limit = limit;
    h->mem = mem ? mem : &h->own_mem;
    h->geom = *geom;
    h->tpb = (uint32_t)tpb;
    h->ws = gr_geom_warp_size(geom);
    h->wpb = gr_geom_warps_per_block(geom);
    h->nblocks = (uint32_t)nb;
    h->nthreads = (uint32_t)(tpb * nb);
    h->lockstep = lockstep;
    h->on_race = on_race;
    h->user = user;
    h->threads = mem_get(h->mem, (size_t)h->nthreads * sizeof *h->threads, true);
    size_t nbarriers = (size_t)h->nblocks * MAX_BARRIERS;
    h->barriers = h->threads ? mem_get(h->mem, nbarriers * sizeof *h->barriers, true) : NULL;
    h->block_cta_release = h->barriers ? mem_get(h->mem, h->nblocks, true) : NULL;
    if (!h->block_cta_release) {
        oom_error(h, err);
        gr_hb_destroy(h);
        return NULL;
    }
    reset_all(h);
    return h;
}

gr_hb *gr_hb_create_with(const gr_launch_geometry *geom, bool lockstep, const gr_hb_options *opt,
                         gr_race_fn on_race, void *user, gr_error *err) {
    gr_hb *h = hb_new(geom, lockstep, NULL, opt ? opt->memory_limit : 0, on_race, user, err);
    if (h && opt) {
        h->track = opt->track_only;
        h->history_budget = opt->history_budget;
        h->history_grace = opt->history_grace ? opt->history_grace : HISTORY_GRACE;
    }
    return h;
}

gr_hb *gr_hb_create(const gr_launch_geometry *geom, bool lockstep, gr_race_fn on_race, void *user,
                    gr_error *err) {
    return gr_hb_create_with(geom, lockstep, NULL, on_race, user, err);
}

void gr_hb_destroy(gr_hb *h) {
    if (!h) return;
    gr_hb_destroy(h->wide);
    if (h->threads) {
        for (uint32_t t = 0; t < h->nthreads; t++) {
            vc_free(h, &h->threads[t].vc);
            fences_free(h, &h->threads[t]);
        }
    }
    if (h->barriers) {
        for (uint32_t i = 0; i < h->nblocks * MAX_BARRIERS; i++) {
            vc_free(h, &h->barriers[i].acc);
            mem_put(h->mem, h->barriers[i].waiters, h->barriers[i].cap_wait * sizeof(hb_waiter));
        }
    }
    pages_free(h);
    mem_put(h->mem, h->pages, h->cap_pages * sizeof *h->pages);
    mem_put(h->mem, h->page_keys, h->cap_pages * sizeof *h->page_keys);
    clear_syncs(h);
    mem_put(h->mem, h->syncs, h->cap_syncs * sizeof *h->syncs);
    map_free(h, &h->page_map);
    map_free(h, &h->sync_map);
    mem_put(h->mem, h->threads, (size_t)h->nthreads * sizeof *h->threads);
    mem_put(h->mem, h->barriers, (size_t)h->nblocks * MAX_BARRIERS * sizeof *h->barriers);
    mem_put(h->mem, h->block_cta_release, h->nblocks);
    free(h);
}

size_t gr_hb_memory(const gr_hb *h) { return h->mem->used; }
size_t gr_hb_memory_peak(const gr_hb *h) { return h->mem->peak; }
bool gr_hb_over_limit(const gr_hb *h) { return h->mem->over; }

/* ---- the widened companion ---- */

static bool waiters_reserve(gr_hb *h, hb_barrier *b, uint32_t n) {
    if (n <= b->cap_wait) return true;
    uint32_t cap = b->cap_wait ? b->cap_wait : 32;
    while (cap < n) cap *= 2;
    hb_waiter *w = mem_grow(h->mem, b->waiters, b->cap_wait, cap, sizeof *w);
    if (!w) return false;
    b->waiters = w;
    b->cap_wait = cap;
    return true;
}

/* Starts h->wide as a copy of h's synchronization state (h has seen no block-scope atomic or
 * fence in this launch yet, so widening would have changed nothing so far). */
static void start_widened(gr_hb *h) {
    /* With one block, block scope covers every pair: widening would change nothing. */
    if (h->widened || h->wide_active || failed(h) || h->nblocks < 2) return;
    if (!h->wide) {
        gr_error err = GR_ERROR_INIT;
        h->wide = hb_new(&h->geom, h->lockstep, h->mem, 0, NULL, NULL, &err);
        gr_error_clear(&err);
        if (!h->wide) return;
        h->wide->widened = true;
    }
    gr_hb *w = h->wide;
    clear_syncs(w);
    for (uint32_t t = 0; t < h->nthreads; t++) {
        const hb_thread *src = &h->threads[t];
        hb_thread *dst = &w->threads[t];
        vc_copy(w, &dst->vc, &src->vc);
        dst->own = src->own;
        dst->version = src->version;
        if (src->f) {
            hb_fences *f = fences_of(w, t);
            if (!f) return;
            for (int sc = 0; sc < 2; sc++) {
                vc_copy(w, &f->rel_fence[sc], &src->f->rel_fence[sc]);
                vc_copy(w, &f->pending[sc], &src->f->pending[sc]);
                f->rel_own[sc] = src->f->rel_own[sc];
            }
        } else {
            fences_free(w, dst);
        }
        dst->has_fence[0] = src->has_fence[0];
        dst->has_fence[1] = src->has_fence[1];
        dst->strong_read = src->strong_read;
        dst->cta_acquire = src->cta_acquire;
        dst->exited = src->exited;
        dst->settled = src->settled;
    }
    for (uint32_t i = 0; i < h->nblocks * MAX_BARRIERS; i++) {
        const hb_barrier *src = &h->barriers[i];
        hb_barrier *dst = &w->barriers[i];
        vc_copy(w, &dst->acc, &src->acc);
        dst->nwait = 0;
        if (!waiters_reserve(w, dst, src->nwait)) return;
        if (src->nwait) memcpy(dst->waiters, src->waiters, src->nwait * sizeof *src->waiters);
        dst->nwait = src->nwait;
        dst->arrived = src->arrived;
    }
    memcpy(w->block_cta_release, h->block_cta_release, h->nblocks);
    for (size_t slot = 0; slot < h->sync_map.cap; slot++) {
        if (!h->sync_map.vals[slot]) continue;
        const sync_obj *src = &h->syncs[h->sync_map.vals[slot] - 1];
        sync_obj *dst = sync_for(w, &h->sync_map.keys[slot], true);
        if (!dst) return;
        for (uint32_t i = 0; i < src->n; i++) {
            rel_entry *e = sync_entry(w, dst, src->e[i].block, src->e[i].scope);
            if (!e) return;
            vc_join(w, &e->vc, &src->e[i].vc);
        }
    }
    if (!failed(h)) h->wide_active = true;
}

/* Does the access `old` happen before thread `thread`'s next access once scopes are widened? */
static bool widened_ordered(const gr_hb *h, const hb_acc *old, uint32_t thread) {
    return h->wide_active && knows(h->wide, thread, old->thread) >= old->clock;
}

/* ---- accesses ---- */

static bool check_thread(const gr_hb *h, uint32_t thread, gr_error *err) {
    if (thread < h->nthreads) return true;
    return gr_fail(err, GR_ERR_INTERNAL, "event names thread %u, but the launch has %u threads",
                   thread, h->nthreads);
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

/* Checks the access `nw` (nw->bytes: the bytes of this granule it touches) against the
 * granule's history and records it. The verdicts are those of one history per byte, visited
 * byte by byte in address order (reports come in that order); `seen` holds the partners'
 * instructions already reported for this access. */
static bool check_granule(gr_hb *h, hb_cell *c, const hb_acc *nw, const gr_access *a,
                          uint64_t granule, uint32_t *seen, uint32_t *nseen) {
    hb_acc *v = cell_entries(c);
    bool any_racy = false;
    h->compared += c->n;
    for (uint32_t i = 0; i < c->n; i++) {
        hb_acc *old = &v[i];
        old->ordered = old->thread == nw->thread || knows(h, nw->thread, old->thread) >= old->clock;
        old->racy = !old->ordered && (old->bytes & nw->bytes) && (old->write || nw->write) &&
                    !atomic_pair_ok(h, old, nw);
        any_racy |= old->racy;
    }
    for (uint32_t b = 0; any_racy && b < 4; b++) {
        if (!(nw->bytes >> b & 1u)) continue;
        for (uint32_t i = 0; i < c->n; i++) {
            const hb_acc *old = &v[i];
            if (!old->racy || !(old->bytes >> b & 1u)) continue;
            bool dup = false;
            for (uint32_t s = 0; s < *nseen; s++) dup |= seen[s] == old->instr;
            if (dup) continue;
            if (*nseen < 8) seen[(*nseen)++] = old->instr;
            report(h, old, nw, a, granule + b);
        }
    }
    uint32_t keep = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        hb_acc old = v[i];
        if (old.ordered && covered_by(h, &old, nw)) {
            old.bytes &= (uint8_t)~nw->bytes;
            if (!old.bytes) continue;
        }
        v[keep++] = old;
    }
    c->n = keep;
    return cell_push(h, c, nw);
}

bool gr_hb_access(gr_hb *h, const gr_access *a, gr_error *err) {
    if (a->space != GR_SPACE_GLOBAL && a->space != GR_SPACE_SHARED) return true;
    if (failed(h)) return oom_error(h, err);
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
    hb_acc nw = {.thread = t, .clock = th->own, .instr = a->instr, .write = writes,
                 .atomic = atomic, .scope = scope, .vol = vol};
    uint32_t sblock = a->space == GR_SPACE_SHARED ? block : 0;
    uint32_t seen[8], nseen = 0;
    uint64_t end = a->addr + a->size;
    for (uint64_t g = a->addr & ~3ull; g < end && !h->widened; g += 4) {
        if (h->track && !gr_granule_set_has(h->track, a->space, sblock, g)) continue;
        uint64_t lo = a->addr > g ? a->addr : g, hi = end < g + 4 ? end : g + 4;
        nw.bytes = (uint8_t)(((1u << (hi - lo)) - 1u) << (lo - g));
        loc_key k = page_key(a->space, sblock, g);
        hb_page *pg = page_for(h, &k, true);
        uint32_t w = (uint32_t)(g / 4 % PAGE_WORDS);
        if (!pg || !check_granule(h, &pg->cells[w], &nw, a, g, seen, &nseen))
            return oom_error(h, err);
        pg->used |= 1ull << w;
    }
    h->accesses++;
    if (h->history_budget &&
        h->compared > h->history_grace + (uint64_t)h->history_budget * h->accesses) {
        h->too_slow = true;
        return oom_error(h, err);
    }

    /* Release/acquire through this location (keyed by its first byte). */
    bool strong = atomic || vol;
    loc_key k = {.addr = a->addr, .block = sblock, .space = a->space};
    if (strong && reads) {
        sync_obj *s = sync_for(h, &k, false);
        bool acq = atomic && (a->sem == GR_SEM_ACQUIRE || a->sem == GR_SEM_ACQ_REL);
        if (s && s->n) {
            if (acq && sync_acquire(h, &th->vc, s, block, scope)) th->version++;
            /* A later fence of scope >= sc acquires what this strong read saw. */
            hb_fences *f = fences_of(h, t);
            for (uint8_t sc = 0; f && sc <= scope; sc++)
                sync_acquire(h, &f->pending[sc], s, block, sc);
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
                sync_add(h, s, block, scope, &th->vc, t, th->own);
                if (scope == 0) h->block_cta_release[block] = 1;
            } else if (strong) {
                for (uint8_t sc = 0; sc <= scope; sc++)
                    if (th->has_fence[sc]) {
                        sync_add(h, s, block, sc, &th->f->rel_fence[sc], t, th->f->rel_own[sc]);
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
    hb_fences *f = fences_of(h, t);
    if (!f) return;
    /* Acquire side: releases seen by earlier strong reads of sufficient scope. */
    for (uint8_t sc = 0; sc <= scope; sc++) thread_join(h, t, &f->pending[sc]);
    if (scope == 0 && th->strong_read) th->cta_acquire = 1;
    /* Release side: remember what the thread knows now for later strong writes. */
    for (uint8_t sc = 0; sc <= scope; sc++) {
        vc_copy(h, &f->rel_fence[sc], &th->vc);
        f->rel_own[sc] = th->own;
        th->has_fence[sc] = 1;
    }
    tick(h, t);
}

static void warp_sync(gr_hb *h, uint32_t block, uint32_t warp, uint32_t mask) {
    uint32_t base = block * h->tpb + warp * h->ws;
    uint32_t lanes = h->ws;
    if (warp * h->ws + lanes > h->tpb) lanes = h->tpb - warp * h->ws;
    mask &= lanes < 32 ? (1u << lanes) - 1 : UINT32_MAX;
    /* Lanes that exited and whose last clock a sync since passed on (lockstep steps include
     * exited lanes) can add nothing: what they knew and did is in every lane's clock already,
     * and they have no events left to order. */
    for (uint32_t m = mask; m; m &= m - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(m);
        if (h->threads[base + l].settled) mask &= ~(1u << l);
    }
    if (!mask) return;
    vclock joined;
    memset(&joined, 0, sizeof joined);
    /* Lanes mostly share their clock (since the last barrier or warp sync): join each distinct
     * one once, then raise every lane's own entry in the block's segment. */
    const vclock *first = &h->threads[base + (uint32_t)__builtin_ctz(mask)].vc;
    vc_copy(h, &joined, first);
    for (uint32_t l = 0; l < lanes; l++)
        if ((mask >> l & 1u) && !vc_same(&h->threads[base + l].vc, first))
            vc_join(h, &joined, &h->threads[base + l].vc);
    bool found;
    uint32_t pos = vc_find(&joined, block, &found);
    vc_seg *seg = NULL;
    if (found) {
        seg = seg_writable(h, &ents(&joined)[pos]);
    } else if ((seg = seg_new(h)) && !vc_insert(h, &joined, pos, block, seg)) {
        seg = NULL;
    }
    for (uint32_t l = 0; seg && l < lanes; l++)
        if (mask >> l & 1u) {
            uint32_t i = base % h->tpb + l, own = h->threads[base + l].own;
            if (seg->c[i] < own) seg->c[i] = own;
        }
    /* The join holds at least what each lane knows: each lane takes it as it is. */
    for (uint32_t l = 0; l < lanes && !failed(h); l++) {
        if (!(mask >> l & 1u)) continue;
        hb_thread *th = &h->threads[base + l];
        vc_copy(h, &th->vc, &joined);
        th->version++;
        tick(h, base + l);
        if (th->exited) th->settled = 1;
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
    if (failed(h)) return oom_error(h, err);
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
        join_thread_into(h, &b->acc, t);
        b->arrived++;
        if (ev->u.arrive.waits && b->nwait < h->tpb && waiters_reserve(h, b, b->nwait + 1))
            b->waiters[b->nwait++] = (hb_waiter){t, h->threads[t].version};
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
        for (uint32_t i = 0; i < b->nwait; i++) {
            hb_thread *th = &h->threads[b->waiters[i].thread];
            /* The barrier's clock holds what the waiter knew when it arrived: unless it learned
             * something since (lockstep steps), it takes the barrier's clock as it is. */
            if (th->version == b->waiters[i].version) {
                vc_copy(h, &th->vc, &b->acc);
                th->version++;
            } else {
                thread_join(h, b->waiters[i].thread, &b->acc);
            }
        }
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
 * canonical descriptions (and schedules) are equal. Detectors share no segments: a copy writes
 * into dst's own (reusing those only dst holds). */

static void vc_assign(gr_hb *dh, vclock *dst, const vclock *src) {
    vc_ent *de = ents(dst);
    uint32_t keep = 0;
    for (uint32_t k = 0; k < dst->n; k++) {
        bool found;
        vc_find(src, de[k].block, &found);
        if (found) de[keep++] = de[k];
        else seg_unref(dh, de[k].seg);
    }
    dst->n = keep;
    for (uint32_t k = 0; k < src->n; k++) {
        const vc_ent *se = &cents(src)[k];
        bool found;
        uint32_t pos = vc_find(dst, se->block, &found);
        vc_seg *d = found ? ents(dst)[pos].seg : NULL;
        if (!d || d->refs > 1) {
            vc_seg *n = seg_new(dh);
            if (!n) return;
            if (d) {
                seg_unref(dh, d);
                ents(dst)[pos].seg = n;
            } else if (!vc_insert(dh, dst, pos, se->block, n)) {
                return;
            }
            d = n;
        }
        memcpy(d->c, se->seg->c, dh->tpb * sizeof *d->c);
        d->id = ++dh->mem->next_id; /* new values: no claim on any origin */
        d->origin = 0;
    }
}

static bool cell_assign(gr_hb *h, hb_cell *dst, const hb_cell *src) {
    uint32_t room = dst->cap > 1 ? dst->cap : 1;
    if (src->n > room) {
        hb_acc *v = mem_get(h->mem, src->n * sizeof *v, false);
        if (!v) return false;
        if (dst->cap > 1) mem_put(h->mem, dst->u.many, dst->cap * sizeof *v);
        dst->u.many = v;
        dst->cap = src->n;
    }
    if (src->n) memcpy(cell_entries(dst), ccell_entries(src), src->n * sizeof(hb_acc));
    dst->n = src->n;
    return true;
}

static bool map_assign(gr_hb *h, loc_map *dst, const loc_map *src) {
    if (dst->cap != src->cap) {
        loc_key *keys = src->cap ? mem_get(h->mem, src->cap * sizeof *keys, false) : NULL;
        uint32_t *vals = keys ? mem_get(h->mem, src->cap * sizeof *vals, false) : NULL;
        if (src->cap && !vals) {
            mem_put(h->mem, keys, src->cap * sizeof *keys);
            return false;
        }
        map_free(h, dst);
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
static bool sync_assign(gr_hb *dh, sync_obj *dst, const sync_obj *src) {
    while (dst->n > src->n) vc_free(dh, &dst->e[--dst->n].vc);
    if (dst->cap < src->n) {
        rel_entry *e = mem_grow(dh->mem, dst->e, dst->cap, src->n, sizeof *e);
        if (!e) return false;
        dst->e = e;
        dst->cap = src->n;
    }
    for (uint32_t i = 0; i < src->n; i++) {
        if (i >= dst->n) {
            memset(&dst->e[i].vc, 0, sizeof dst->e[i].vc);
            dst->n = i + 1;
        }
        dst->e[i].block = src->e[i].block;
        dst->e[i].scope = src->e[i].scope;
        vc_assign(dh, &dst->e[i].vc, &src->e[i].vc);
    }
    return !failed(dh);
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
    if (failed(src)) return oom_error(src, err);
    if (failed(dst)) return oom_error(dst, err);
    dst->compared = src->compared;
    dst->accesses = src->accesses;
    for (uint32_t t = 0; t < src->nthreads; t++) {
        const hb_thread *s = &src->threads[t];
        hb_thread *d = &dst->threads[t];
        vc_assign(dst, &d->vc, &s->vc);
        d->own = s->own;
        d->version = s->version;
        if (s->f) {
            hb_fences *f = fences_of(dst, t);
            if (!f) return oom_error(dst, err);
            for (int sc = 0; sc < 2; sc++) {
                vc_assign(dst, &f->rel_fence[sc], &s->f->rel_fence[sc]);
                vc_assign(dst, &f->pending[sc], &s->f->pending[sc]);
                f->rel_own[sc] = s->f->rel_own[sc];
            }
        } else {
            fences_free(dst, d);
        }
        d->has_fence[0] = s->has_fence[0];
        d->has_fence[1] = s->has_fence[1];
        d->strong_read = s->strong_read;
        d->cta_acquire = s->cta_acquire;
        d->exited = s->exited;
        d->settled = s->settled;
    }
    for (uint32_t i = 0; i < src->nblocks * MAX_BARRIERS; i++) {
        const hb_barrier *s = &src->barriers[i];
        hb_barrier *d = &dst->barriers[i];
        /* An instance without arrivals has an empty clock and no waiters. */
        if (!s->arrived && !d->arrived) continue;
        vc_assign(dst, &d->acc, &s->acc);
        if (!waiters_reserve(dst, d, s->nwait)) return oom_error(dst, err);
        if (s->nwait) memcpy(d->waiters, s->waiters, s->nwait * sizeof *s->waiters);
        d->nwait = s->nwait;
        d->arrived = s->arrived;
    }
    memcpy(dst->block_cta_release, src->block_cta_release, src->nblocks);

    /* Access histories: dst keeps its pages (emptied), src's are copied into pages of the
     * same keys. */
    for (size_t p = 0; p < dst->npages; p++) {
        hb_page *dp = dst->pages[p];
        for (uint64_t m = dp->used; m; m &= m - 1) dp->cells[__builtin_ctzll(m)].n = 0;
        dp->used = 0;
    }
    for (size_t p = 0; p < src->npages; p++) {
        const hb_page *sp = src->pages[p];
        if (!sp->used) continue;
        hb_page *dp = page_for(dst, &src->page_keys[p], true);
        if (!dp) return oom_error(dst, err);
        for (uint64_t m = sp->used; m; m &= m - 1) {
            uint32_t i = (uint32_t)__builtin_ctzll(m);
            if (!cell_assign(dst, &dp->cells[i], &sp->cells[i])) return oom_error(dst, err);
        }
        dp->used = sp->used;
    }

    /* Release locations. */
    for (size_t i = src->nsyncs; i < dst->nsyncs; i++) sync_free(dst, &dst->syncs[i]);
    if (dst->nsyncs > src->nsyncs) dst->nsyncs = src->nsyncs;
    if (dst->cap_syncs < src->nsyncs) {
        sync_obj *syncs =
            mem_grow(dst->mem, dst->syncs, dst->cap_syncs, src->nsyncs, sizeof *syncs);
        if (!syncs) return oom_error(dst, err);
        dst->syncs = syncs;
        dst->cap_syncs = src->nsyncs;
    }
    for (size_t i = dst->nsyncs; i < src->nsyncs; i++)
        memset(&dst->syncs[i], 0, sizeof dst->syncs[i]);
    dst->nsyncs = src->nsyncs;
    for (size_t i = 0; i < src->nsyncs; i++)
        if (!sync_assign(dst, &dst->syncs[i], &src->syncs[i])) return oom_error(dst, err);
    if (!map_assign(dst, &dst->sync_map, &src->sync_map)) return oom_error(dst, err);

    /* The widened companion matters only while it follows the launch. */
    dst->wide_active = src->wide_active;
    if (src->wide_active) {
        if (!dst->wide) {
            dst->wide = hb_new(&dst->geom, dst->lockstep, dst->mem, 0, NULL, NULL, err);
            if (!dst->wide) return false;
            dst->wide->widened = true;
        }
        if (!gr_hb_copy(dst->wide, src->wide, err)) return false;
    }
    return oom_error(dst, err);
}

gr_hb *gr_hb_clone(const gr_hb *src, gr_race_fn on_race, void *user, gr_error *err) {
    gr_hb *h = hb_new(&src->geom, src->lockstep, NULL, src->mem->limit, on_race, user, err);
    if (!h) return NULL;
    h->track = src->track;
    h->history_budget = src->history_budget;
    h->history_grace = src->history_grace;
    if (!gr_hb_copy(h, src, err)) {
        gr_hb_destroy(h);
        return NULL;
    }
    return h;
}

/* The canonical description. Clock values of one thread are compared only with each other
 * (what u knows of t >= clock of an access by t) and grow only by the thread's own tick past
 * all of them, so replacing each thread's values by their ranks (0 stays 0) keeps every future
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

/* A vector clock as the description sees it: `owner`'s entry (UINT32_MAX: none) is
 * `owner_clock`, the others are the segments'. */
typedef struct canon_vc {
    const vclock *v;
    uint32_t owner, owner_clock;
} canon_vc;

static uint32_t canon_vc_get(const gr_hb *h, canon_vc v, uint32_t u) {
    return u == v.owner ? v.owner_clock : vc_get(h, v.v, u);
}

static const vclock empty_vc;

static canon_vc plain_vc(const vclock *v) { return (canon_vc){v, UINT32_MAX, 0}; }
static canon_vc thread_vc(const gr_hb *h, uint32_t t) {
    return (canon_vc){&h->threads[t].vc, t, h->threads[t].own};
}
static canon_vc fence_vc(const gr_hb *h, uint32_t t, int sc) {
    const hb_fences *f = h->threads[t].f;
    return f ? (canon_vc){&f->rel_fence[sc], t, f->rel_own[sc]} : plain_vc(&empty_vc);
}
static canon_vc pending_vc(const gr_hb *h, uint32_t t, int sc) {
    const hb_fences *f = h->threads[t].f;
    return plain_vc(f ? &f->pending[sc] : &empty_vc);
}

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

static void canon_note_vc(canon *c, const gr_hb *h, canon_vc v) {
    if (c->absolute) return;
    for (uint32_t u = 0; u < h->nthreads; u++) canon_note(c, u, canon_vc_get(h, v, u));
}

static void canon_put_vc(canon *c, const gr_hb *h, canon_vc v) {
    /* Four 16-bit ranks per word (ranks are small; absolute values take a word each). */
    uint64_t word = 0;
    uint32_t k = 0;
    for (uint32_t t = 0; t < h->nthreads; t++) {
        uint64_t r = canon_rank(c, t, canon_vc_get(h, v, t));
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
        canon_note_vc(c, h, thread_vc(h, t));
        for (int sc = 0; sc < 2; sc++) {
            canon_note_vc(c, h, fence_vc(h, t, sc));
            canon_note_vc(c, h, pending_vc(h, t, sc));
        }
    }
    for (uint32_t i = 0; i < h->nblocks * MAX_BARRIERS; i++)
        if (h->barriers[i].arrived) canon_note_vc(c, h, plain_vc(&h->barriers[i].acc));
    for (size_t i = 0; i < h->nsyncs; i++)
        for (uint32_t j = 0; j < h->syncs[i].n; j++)
            canon_note_vc(c, h, plain_vc(&h->syncs[i].e[j].vc));
    for (size_t p = 0; p < h->npages; p++)
        for (uint64_t m = h->pages[p]->used; m; m &= m - 1) {
            const hb_cell *cell = &h->pages[p]->cells[__builtin_ctzll(m)];
            for (uint32_t j = 0; j < cell->n; j++)
                canon_note(c, ccell_entries(cell)[j].thread, ccell_entries(cell)[j].clock);
        }
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_key(const loc_key *x, const loc_key *y) {
    if (x->space != y->space) return x->space < y->space ? -1 : 1;
    if (x->block != y->block) return x->block < y->block ? -1 : 1;
    return (x->addr > y->addr) - (x->addr < y->addr);
}

#define CANON_MAX_KEYS 256u
#define CANON_MAX_LIST 64u

/* The release locations with entries, in key order (insertion sort: the maps of the small
 * launches this is meant for hold a few keys). Returns the count; more than `cap` sets
 * *overflow. */
static size_t sorted_syncs(const gr_hb *h, size_t *slots, size_t cap, bool *overflow) {
    static const uint32_t zeros[16];
    const loc_map *m = &h->sync_map;
    size_t n = 0;
    for (size_t s = 0; s < m->cap; s++) {
        /* Skip empty runs of slots 16 at a time (the maps are mostly empty). */
        if (s % 16 == 0 && s + 16 <= m->cap && !memcmp(&m->vals[s], zeros, sizeof zeros)) {
            s += 15;
            continue;
        }
        if (!m->vals[s] || h->syncs[m->vals[s] - 1].n == 0) continue;
        if (n == cap) {
            *overflow = true;
            break;
        }
        size_t i = n++;
        while (i > 0 && cmp_key(&m->keys[slots[i - 1]], &m->keys[s]) > 0) {
            slots[i] = slots[i - 1];
            i--;
        }
        slots[i] = s;
    }
    return n;
}

/* A byte with a non-empty history: its key and where its entries are (those of `cell` whose
 * bytes include bit `byte`). */
typedef struct canon_byte {
    loc_key key;
    const hb_cell *cell;
    uint8_t byte;
} canon_byte;

/* The bytes with histories, in key order (as one history per byte would list them). */
static size_t sorted_bytes(const gr_hb *h, canon_byte *out, size_t cap, bool *overflow) {
    size_t n = 0;
    for (size_t p = 0; p < h->npages; p++) {
        const loc_key *pk = &h->page_keys[p];
        const hb_page *pg = h->pages[p];
        for (uint64_t m = pg->used; m; m &= m - 1) {
            uint32_t w = (uint32_t)__builtin_ctzll(m);
            const hb_cell *cell = &pg->cells[w];
            uint8_t bytes = 0;
            for (uint32_t j = 0; j < cell->n; j++) bytes |= ccell_entries(cell)[j].bytes;
            for (uint8_t b = 0; b < 4; b++) {
                if (!(bytes >> b & 1u)) continue;
                if (n == cap) {
                    *overflow = true;
                    return n;
                }
                canon_byte x = {{.addr = pk->addr * 4 * PAGE_WORDS + w * 4 + b, .block = pk->block,
                                 .space = pk->space}, cell, b};
                size_t i = n++;
                while (i > 0 && cmp_key(&out[i - 1].key, &x.key) > 0) {
                    out[i] = out[i - 1];
                    i--;
                }
                out[i] = x;
            }
        }
    }
    return n;
}

static void canon_put_key(canon *c, const loc_key *k) {
    canon_put(c, k->addr);
    canon_put(c, (uint64_t)k->block << 8 | k->space);
}

/* The synchronization part (threads, barriers, block flags, release locations). */
static void canon_put_sync(canon *c, const gr_hb *h, bool *overflow) {
    for (uint32_t t = 0; t < h->nthreads; t++) {
        const hb_thread *th = &h->threads[t];
        canon_put(c, (uint64_t)th->has_fence[0] | (uint64_t)th->has_fence[1] << 1 |
                         (uint64_t)th->strong_read << 2 | (uint64_t)th->cta_acquire << 3 |
                         (uint64_t)th->exited << 4 | (uint64_t)th->settled << 5);
        canon_put_vc(c, h, thread_vc(h, t));
        for (int sc = 0; sc < 2; sc++) {
            canon_put_vc(c, h, fence_vc(h, t, sc));
            canon_put_vc(c, h, pending_vc(h, t, sc));
        }
    }
    for (uint32_t i = 0; i < h->nblocks * MAX_BARRIERS; i++) {
        const hb_barrier *b = &h->barriers[i];
        if (!b->arrived && !b->nwait) continue;
        canon_put(c, 1ull << 63 | (uint64_t)i << 40 | (uint64_t)b->arrived << 20 | b->nwait);
        uint64_t waiters[CANON_MAX_LIST];
        uint32_t n = b->nwait < CANON_MAX_LIST ? b->nwait : CANON_MAX_LIST;
        if (n < b->nwait) *overflow = true;
        for (uint32_t k = 0; k < n; k++) waiters[k] = b->waiters[k].thread;
        qsort(waiters, n, sizeof *waiters, cmp_u64);
        for (uint32_t k = 0; k < n; k++) canon_put(c, waiters[k]);
        canon_put_vc(c, h, plain_vc(&b->acc));
    }
    for (uint32_t b = 0; b < h->nblocks; b++) canon_put(c, h->block_cta_release[b]);
    size_t slots[CANON_MAX_KEYS];
    size_t n = sorted_syncs(h, slots, CANON_MAX_KEYS, overflow);
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
            canon_put_vc(c, h, plain_vc(&e->vc));
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
    canon_byte bytes[CANON_MAX_KEYS];
    size_t n = sorted_bytes(h, bytes, CANON_MAX_KEYS, &overflow);
    canon_put(&c, n);
    for (size_t i = 0; i < n; i++) {
        const hb_cell *cell = bytes[i].cell;
        canon_put_key(&c, &bytes[i].key);
        /* The list's order does not matter (every entry is checked, reports are
         * deduplicated per partner): list the entries sorted. Instruction ids are left out. */
        uint64_t entries[CANON_MAX_LIST];
        uint32_t m = 0;
        for (uint32_t j = 0; j < cell->n; j++) {
            const hb_acc *a = &ccell_entries(cell)[j];
            if (!(a->bytes >> bytes[i].byte & 1u)) continue;
            if (m == CANON_MAX_LIST) {
                overflow = true;
                break;
            }
            uint32_t rank = canon_rank(&c, a->thread, a->clock);
            if (rank > 0xffffffu || a->thread > 0xffffffu) overflow = true;
            entries[m++] = (uint64_t)a->thread << 40 | (uint64_t)(rank & 0xffffffu) << 16 |
                           (uint64_t)a->write | (uint64_t)a->atomic << 1 |
                           (uint64_t)a->scope << 2 | (uint64_t)a->vol << 4;
        }
        qsort(entries, m, sizeof *entries, cmp_u64);
        canon_put(&c, m);
        for (uint32_t j = 0; j < m; j++) canon_put(&c, entries[j]);
    }
    if (wide) canon_put_sync(&c, h->wide, &overflow);
    /* Too large for the fixed tables: no description rather than a wrong match. */
    return overflow ? 0 : c.n;
}
