/* fsm.c — host driver of the shadow FSM: shadow pages, per-thread sync state, events. */
#include "oracle/fsm.h"

#include <stdlib.h>
#include <string.h>

#include "oracle/fsm_rules.h"

_Static_assert((int)GR_FSM_KIND_ATOMIC_SCOPE == (int)GR_RACE_ATOMIC_SCOPE, "race kinds agree");
_Static_assert((int)GR_FSM_KIND_WAW == (int)GR_RACE_WAW, "race kinds agree");
_Static_assert((int)GR_FSM_CAUSE_NO_ACQUIRE == (int)GR_CAUSE_NO_ACQUIRE, "race causes agree");
_Static_assert((int)GR_FSM_CAUSE_SAME_STEP == (int)GR_CAUSE_SAME_STEP, "race causes agree");
_Static_assert((int)GR_FSM_FLAG_SCOPED == (int)GR_RACE_SCOPED &&
                   (int)GR_FSM_FLAG_VOLATILE == (int)GR_RACE_VOLATILE &&
                   (int)GR_FSM_FLAG_KIND_INEXACT == (int)GR_RACE_KIND_INEXACT,
               "race flags agree");

#define PAGE_WORDS 1024u /* shadow words per page: 4 KiB of user memory */
#define MAX_BARRIERS 16u

typedef struct fsm_thread {
    uint32_t bar;         /* barrier instances arrived at (waiters: completed) */
    uint32_t wbar;        /* `bar` when it last waited at a barrier */
    uint32_t wep;
    uint32_t block, warp; /* its block, and its warp as block * warps_per_block + warp */
    uint8_t taint;        /* 0 none, 1 acquired in block scope, 2 may be ordered after anyone */
    uint8_t fence_level;  /* widest fence so far: 0 none, 1 cta, 2 gpu */
    uint8_t strong_read;  /* a strong read happened: a later fence acquires */
    uint8_t touched;      /* accessed memory since its last barrier arrival */
    uint8_t ever_touched; /* accessed memory at all */
    uint8_t exited;
    uint8_t waiting;      /* barrier id + 1 it waits at, 0 none */
} fsm_thread;

typedef struct fsm_barrier {
    uint32_t arrived;
    uint32_t epoch;       /* the arrivers' epoch before this instance (all must agree) */
    uint32_t gone;        /* arrivers that exited since */
    uint8_t taint;
} fsm_barrier;

typedef struct fsm_block {
    uint8_t regular;      /* barrier epochs order accesses (gr_fsm_ctx.block_regular) */
    uint8_t epochs;       /* barrier epochs are comparable (gr_fsm_ctx.block_epochs) */
    uint8_t max_taint;
    uint32_t live;
    uint32_t pending;     /* barrier instances with arrivals, not yet complete */
    uint8_t split;        /* some thread arrived without waiting (bar.arrive) */
    uint8_t exited_after_access; /* some thread that accessed memory exited */
    fsm_barrier bar[MAX_BARRIERS];
} fsm_block;

typedef struct shadow_page {
    uint64_t key;  /* space/block/page number; 0 = empty slot */
    uint64_t *words;
    bool dirty;    /* used since the last reset (kernel end clears only these) */
} shadow_page;

struct gr_fsm {
    gr_launch_geometry geom;
    uint32_t tpb, ws, wpb, nblocks, nthreads;
    bool lockstep;
    gr_race_fn on_race;
    void *user;
    fsm_thread *threads;
    fsm_block *blocks;
    uint8_t *warp_regular;  /* per warp (block * wpb + warp) */
    uint8_t *block_rel;     /* per block: bit0 some release in the block, bit1 a gpu-scope one */
    uint8_t grid_rel;
    gr_fsm_ctx ctx;         /* the launch-wide part of the transition context */
    shadow_page *pages;     /* open addressing on key */
    size_t npages, cap_pages;
    shadow_page *last;      /* one-entry cache */
    uint64_t undecided;
};

static uint64_t page_key(uint8_t space, uint32_t block, uint64_t page) {
    /* Shared windows are per block; global memory is one space. +1 keeps 0 free. */
    uint64_t k = space == GR_SPACE_SHARED ? ((uint64_t)(block + 1) << 40) ^ page : page;
    return (k << 1 | (space == GR_SPACE_SHARED)) + 1;
}

static size_t slot_of(uint64_t key, size_t cap) {
    key ^= key >> 29;
    key *= 0xbf58476d1ce4e5b9ULL;
    key ^= key >> 32;
    return (size_t)key & (cap - 1);
}

static bool grow_pages(gr_fsm *f) {
    size_t cap = f->cap_pages ? f->cap_pages * 2 : 64;
    shadow_page *pages = calloc(cap, sizeof *pages);
    if (!pages) return false;
    for (size_t i = 0; i < f->cap_pages; i++) {
        if (!f->pages[i].key) continue;
        size_t s = slot_of(f->pages[i].key, cap);
        while (pages[s].key) s = (s + 1) & (cap - 1);
        pages[s] = f->pages[i];
    }
    free(f->pages);
    f->pages = pages;
    f->cap_pages = cap;
    f->last = NULL;
    return true;
}

/* The shadow page for `key`, allocated on first use (callers check the one-entry cache). */
static uint64_t *shadow_words(gr_fsm *f, uint64_t key, gr_error *err) {
    if ((f->npages + 1) * 2 > f->cap_pages && !grow_pages(f)) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory for FSM shadow pages");
        return NULL;
    }
    size_t s = slot_of(key, f->cap_pages);
    while (f->pages[s].key && f->pages[s].key != key) s = (s + 1) & (f->cap_pages - 1);
    if (!f->pages[s].key) {
        uint64_t *words = calloc(PAGE_WORDS, sizeof *words);
        if (!words) {
            gr_fail(err, GR_ERR_NOMEM, "out of memory for FSM shadow");
            return NULL;
        }
        f->pages[s].key = key;
        f->pages[s].words = words;
        f->npages++;
    }
    f->last = &f->pages[s];
    f->last->dirty = true;
    return f->last->words;
}

static void reset_state(gr_fsm *f) {
    memset(f->threads, 0, f->nthreads * sizeof *f->threads);
    for (uint32_t t = 0; t < f->nthreads; t++) {
        f->threads[t].block = t / f->tpb;
        f->threads[t].warp = f->threads[t].block * f->wpb + (t % f->tpb) / f->ws;
    }
    for (uint32_t b = 0; b < f->nblocks; b++) {
        memset(&f->blocks[b], 0, sizeof f->blocks[b]);
        f->blocks[b].regular = f->blocks[b].epochs = 1;
        f->blocks[b].live = f->tpb;
    }
    memset(f->warp_regular, 1, (size_t)f->nblocks * f->wpb);
    memset(f->block_rel, 0, f->nblocks);
    f->grid_rel = 0;
    /* Every page used since the last reset went through shadow_words() (the one-entry cache
     * is dropped here), which marked it dirty. */
    for (size_t i = 0; i < f->cap_pages; i++)
        if (f->pages[i].key && f->pages[i].dirty) {
            memset(f->pages[i].words, 0, PAGE_WORDS * sizeof(uint64_t));
            f->pages[i].dirty = false;
        }
    f->last = NULL;
}

gr_fsm *gr_fsm_create(const gr_launch_geometry *geom, bool lockstep, gr_race_fn on_race,
                      void *user, gr_error *err) {
    uint64_t tpb = gr_geom_threads_per_block(geom), nb = gr_geom_blocks(geom);
    if (tpb == 0 || nb == 0) {
        gr_fail(err, GR_ERR_USAGE, "empty launch geometry");
        return NULL;
    }
    if (tpb * nb > GR_FSM_MAX_THREADS) {
        gr_fail(err, GR_ERR_UNSUPPORTED,
                "the shadow-FSM detector tracks at most %u threads per launch (this one has %llu);"
                " use fewer blocks or --detector hb",
                GR_FSM_MAX_THREADS, (unsigned long long)(tpb * nb));
        return NULL;
    }
    gr_fsm *f = calloc(1, sizeof *f);
    if (!f) goto oom;
    f->geom = *geom;
    f->tpb = (uint32_t)tpb;
    f->ws = gr_geom_warp_size(geom);
    f->wpb = gr_geom_warps_per_block(geom);
    f->nblocks = (uint32_t)nb;
    f->nthreads = (uint32_t)(tpb * nb);
    f->lockstep = lockstep;
    f->on_race = on_race;
    f->user = user;
    f->threads = calloc(f->nthreads, sizeof *f->threads);
    f->blocks = calloc(f->nblocks, sizeof *f->blocks);
    f->warp_regular = calloc((size_t)f->nblocks * f->wpb, 1);
    f->block_rel = calloc(f->nblocks, 1);
    if (!f->threads || !f->blocks || !f->warp_regular || !f->block_rel) goto oom;
    f->ctx = (gr_fsm_ctx){.threads_per_block = f->tpb, .warp_size = f->ws,
                          .lockstep = lockstep, .tpb_recip = gr_fsm_reciprocal(f->tpb),
                          .ws_recip = gr_fsm_reciprocal(f->ws)};
    reset_state(f);
    return f;
oom:
    gr_fsm_destroy(f);
    gr_fail(err, GR_ERR_NOMEM, "out of memory creating the FSM detector");
    return NULL;
}

void gr_fsm_destroy(gr_fsm *f) {
    if (!f) return;
    for (size_t i = 0; i < f->cap_pages; i++) free(f->pages[i].words);
    free(f->pages);
    free(f->threads);
    free(f->blocks);
    free(f->warp_regular);
    free(f->block_rel);
    free(f);
}

uint64_t gr_fsm_undecided(const gr_fsm *f) { return f->undecided; }
size_t gr_fsm_shadow_bytes(const gr_fsm *f) { return f->npages * PAGE_WORDS * sizeof(uint64_t); }
size_t gr_fsm_tracked_bytes(const gr_fsm *f) { return f->npages * PAGE_WORDS * 4; }

static uint8_t scope_level(uint8_t scope) { return scope == GR_SCOPE_CTA ? 1 : 2; }

static void acquire(gr_fsm *f, fsm_thread *t, uint8_t level) {
    fsm_block *b = &f->blocks[t->block];
    /* Nothing released yet that this acquire could pair with: it orders nothing. A block-scope
     * acquire pairs only with releases of its own block; a device-scope one also with
     * device-scope releases anywhere. */
    bool block_released = f->block_rel[t->block] & 1u;
    if (!block_released && (level == 1 || !(f->grid_rel & 2u))) return;
    /* A block-scope acquire may pick up whatever some thread of the block got from afar. */
    uint8_t got = level == 1 ? (b->max_taint == 2 ? 2 : 1) : 2;
    if (got > t->taint) t->taint = got;
    if (t->taint > b->max_taint) b->max_taint = t->taint;
}

static void release(gr_fsm *f, uint32_t block, uint8_t level) {
    f->block_rel[block] |= level == 2 ? 3 : 1;
    if (level == 2) f->grid_rel |= 2;
}

static bool check_thread(const gr_fsm *f, uint32_t thread, gr_error *err) {
    if (thread < f->nthreads) return true;
    return gr_fail(err, GR_ERR_INTERNAL, "event names thread %u, but the launch has %u threads",
                   thread, f->nthreads);
}

static void report(gr_fsm *f, const gr_access *a, uint32_t block, uint64_t addr,
                   const gr_fsm_result *r) {
    if (!f->on_race) return;
    gr_race race = {
        .kind = (uint8_t)r->kind, .cause = (uint8_t)r->cause, .space = a->space,
        .flags = (uint8_t)r->flags, .block = a->space == GR_SPACE_SHARED ? block : 0,
        .addr = addr, .first_thread = r->other_thread, .second_thread = a->thread,
        .first_instr = r->other_instr == GR_FSM_INSTR_UNKNOWN ? GR_INSTR_UNKNOWN : r->other_instr,
        .second_instr = a->instr, .count = 1,
    };
    f->on_race(f->user, &race);
}

/* The access as the transition function sees it, for one granule's `bytes`. */
static inline gr_fsm_access fsm_access_of(const fsm_thread *t, const gr_access *a, uint32_t bytes) {
    bool atomic = a->kind == GR_ACCESS_ATOMIC;
    return (gr_fsm_access){
        .thread = a->thread, .bar = t->bar, .wep = t->wep,
        .instr = a->instr >= GR_FSM_INSTR_UNKNOWN ? GR_FSM_INSTR_UNKNOWN : a->instr,
        .bytes = bytes,
        .write = a->kind == GR_ACCESS_WRITE || (atomic && a->op != GR_ATOM_LD),
        .atomic = atomic, .cta = atomic && a->scope == GR_SCOPE_CTA,
        .vol = !atomic && (a->flags & GR_ACCESS_VOLATILE), .bar_lag = t->bar - t->wbar,
    };
}

/* The synchronization context of thread `t` against the members of word `w`. */
static inline void slow_context(gr_fsm *f, const fsm_thread *t, uint64_t w) {
    gr_fsm_ctx *ctx = &f->ctx;
    ctx->warp_regular = f->warp_regular[t->warp];
    ctx->taint = t->taint;
    ctx->grid_rel = f->grid_rel;
    ctx->rep_block_rel = f->block_rel[gr_fsm_div(gr_fsm_rep(w), f->tpb, ctx->tpb_recip)];
}

static void count_action(gr_fsm *f, const gr_access *a, uint32_t block, uint64_t addr,
                         const gr_fsm_result *r) {
    if (r->action == GR_FSM_ACT_UNDECIDED) f->undecided++;
    else if (r->action == GR_FSM_ACT_RACE) report(f, a, block, addr, r);
}

/* The full transition, for words the quick path did not decide (kept out of line so the
 * quick path stays short). `a` names the access in a report; `fa` is it as the rules see it. */
static __attribute__((noinline)) void update_slow(gr_fsm *f, const fsm_thread *t,
                                                  const gr_access *a, const gr_fsm_access *fa,
                                                  uint64_t *w, uint64_t single, uint64_t addr) {
    slow_context(f, t, *w);
    gr_fsm_result r = {0};
    *w = gr_fsm_update_slow(*w, single, fa, &f->ctx, &r);
    count_action(f, a, t->block, addr, &r);
}

static __attribute__((noinline)) bool bad_access(const gr_fsm *f, const gr_access *a,
                                                 gr_error *err) {
    if (a->thread >= f->nthreads)
        return gr_fail(err, GR_ERR_INTERNAL, "event names thread %u, but the launch has %u threads",
                       a->thread, f->nthreads);
    return gr_fail(err, GR_ERR_INTERNAL, "access of %u bytes", a->size);
}

/* Synchronization effects of a strong access come after the access's own check. */
static void strong_effects(gr_fsm *f, fsm_thread *t, const gr_access *a, bool atomic, bool reads,
                           bool writes) {
    if (reads) {
        t->strong_read = 1;
        if (atomic && (a->sem == GR_SEM_ACQUIRE || a->sem == GR_SEM_ACQ_REL))
            acquire(f, t, scope_level(a->scope));
    }
    if (writes) {
        uint8_t level = atomic ? scope_level(a->scope) : 2;
        if (atomic && (a->sem == GR_SEM_RELEASE || a->sem == GR_SEM_ACQ_REL))
            release(f, t->block, level);
        else if (t->fence_level)
            release(f, t->block, t->fence_level < level ? t->fence_level : level);
    }
}

/* The shadow word of granule `gi` (address / 4), or NULL when out of memory. */
static inline uint64_t *shadow_word(gr_fsm *f, uint8_t space, uint32_t block, uint64_t gi,
                                    gr_error *err) {
    uint64_t key = page_key(space, block, gi / PAGE_WORDS);
    uint64_t *words = f->last && f->last->key == key ? f->last->words : shadow_words(f, key, err);
    return words ? &words[gi % PAGE_WORDS] : NULL;
}

/* Accesses spanning granules, atomics and volatile accesses. */
static __attribute__((noinline)) bool feed_general(gr_fsm *f, fsm_thread *t, const gr_access *a,
                                                   gr_error *err) {
    gr_fsm_access fa = fsm_access_of(t, a, 0);
    f->ctx.block_regular = f->blocks[t->block].regular;
    f->ctx.block_epochs = f->blocks[t->block].epochs;
    t->touched = t->ever_touched = 1;
    uint64_t base = gr_fsm_single(&fa); /* bytes are or-ed in per granule */
    uint64_t first = a->addr & ~(uint64_t)3, end = a->addr + a->size;
    for (uint64_t g = first; g < end; g += 4) {
        uint64_t lo = g < a->addr ? a->addr : g, hi = g + 4 < end ? g + 4 : end;
        fa.bytes = ((1u << (hi - lo)) - 1u) << (lo - g);
        uint64_t *w = shadow_word(f, a->space, t->block, g >> 2, err), nw;
        if (!w) return false;
        uint64_t single = base | (uint64_t)fa.bytes << 40;
        if (gr_fsm_quick(*w, single, &fa, &f->ctx, &nw)) *w = nw;
        else update_slow(f, t, a, &fa, w, single, lo);
    }
    bool atomic = a->kind == GR_ACCESS_ATOMIC;
    if (atomic || fa.vol)
        strong_effects(f, t, a, atomic,
                       a->kind == GR_ACCESS_READ ||
                           (atomic && a->op != GR_ATOM_ST && a->op != GR_ATOM_RED),
                       fa.write);
    return true;
}

/* The hot path, a plain access within one granule: a few loads, the quick decision on the
 * shadow word, a store. Everything else goes to feed_general(). */
bool gr_fsm_feed_access(gr_fsm *f, const gr_access *a, gr_error *err) {
    _Static_assert(GR_SPACE_GLOBAL == 0 && GR_SPACE_SHARED == 1, "tracked spaces come first");
    if (a->space > GR_SPACE_SHARED) return true;
    if (a->thread >= f->nthreads || a->size == 0 || a->size > 16) return bad_access(f, a, err);
    fsm_thread *t = &f->threads[a->thread];
    uint32_t off = (uint32_t)a->addr & 3u;
    if (off + a->size > 4u || a->kind > GR_ACCESS_WRITE || (a->flags & GR_ACCESS_VOLATILE))
        return feed_general(f, t, a, err);
    uint32_t bytes = ((1u << a->size) - 1u) << off;
    gr_fsm_access fa = fsm_access_of(t, a, bytes);
    f->ctx.block_regular = f->blocks[t->block].regular;
    f->ctx.block_epochs = f->blocks[t->block].epochs;
    t->touched = t->ever_touched = 1;
    uint64_t *w = shadow_word(f, a->space, t->block, a->addr >> 2, err), nw;
    if (!w) return false;
    uint64_t single = gr_fsm_single(&fa);
    if (gr_fsm_quick(*w, single, &fa, &f->ctx, &nw)) *w = nw;
    else update_slow(f, t, a, &fa, w, single, a->addr);
    return true;
}

/* The lanes one at a time through gr_fsm_feed_access(): batches the fast path does not take
 * (atomics, volatile accesses, lanes of several blocks, malformed accesses). */
static bool feed_lanes_one_by_one(gr_fsm *f, const gr_access *proto, uint32_t lane_mask,
                                  uint32_t first_thread, const uint64_t *addr, gr_error *err) {
    gr_access a = *proto;
    for (uint32_t m = lane_mask; m; m &= m - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(m);
        a.thread = first_thread + l;
        a.addr = addr[l];
        if (!gr_fsm_feed_access(f, &a, err)) return false;
    }
    return true;
}

/* The lanes of a warp mostly see words that differ only in the latest member's thread (a
 * neighbour's slot, a word the previous lane just read) and take the same slow transition.
 * gr_fsm_update_slow() reads that thread (`rep`) and the accessing thread only through
 * whether they are one thread, share a block, share a warp, and the release flags of rep's
 * block; its new word always names the accessing thread, and a race names rep. So for lanes
 * with the same synchronization state (epochs, taint, warp), the same old word and access word
 * less their thread fields, and the same relation between the two threads (`rel`), the
 * transition is the same up to those fields: the batch remembers its latest slow transition
 * and replays it. */
typedef struct slow_memo {
    bool valid;
    uint64_t w, single; /* old word and access word, thread fields masked */
    uint32_t rel;       /* rep_relation() */
    uint64_t out;       /* new word, thread field masked */
    gr_fsm_result r;
} slow_memo;

/* What the slow transition reads of the pair (rep, accessing thread of block `block` and
 * warp-in-block `warp`). */
static inline uint32_t rep_relation(const gr_fsm *f, uint32_t block, uint32_t warp,
                                    uint32_t thread, uint32_t rep) {
    const gr_fsm_ctx *c = &f->ctx;
    uint32_t rep_block = gr_fsm_div(rep, f->tpb, c->tpb_recip);
    uint32_t rep_warp = gr_fsm_div(rep - rep_block * f->tpb, f->ws, c->ws_recip);
    return (uint32_t)(rep == thread) | (uint32_t)(rep_block == block) << 1 |
           (uint32_t)(rep_warp == warp) << 2 | (uint32_t)f->block_rel[rep_block] << 3;
}

/* Do the lanes of the mask share one warp and its synchronization state? */
static bool lanes_in_step(const fsm_thread *lane0, uint32_t lane_mask) {
    const fsm_thread *a = &lane0[__builtin_ctz(lane_mask)];
    for (uint32_t m = lane_mask & (lane_mask - 1); m; m &= m - 1) {
        const fsm_thread *b = &lane0[__builtin_ctz(m)];
        if (b->bar != a->bar || b->wbar != a->wbar || b->wep != a->wep || b->warp != a->warp ||
            b->taint != a->taint)
            return false;
    }
    return true;
}

/* What one call of feed_plain_lanes() shares between its lanes. */
typedef struct lane_batch {
    gr_fsm *f;
    const gr_access *proto;
    uint32_t block, warp; /* warp within the block */
    fsm_thread *lane0;
    uint32_t lane_mask;
    int in_step;          /* lanes_in_step(), computed at the first slow transition: -1 not yet */
    slow_memo memo;
} lane_batch;

/* rep_relation(), less what a word of `who` makes irrelevant: for members of several blocks
 * the slow transition reads rep only to name it in a report. */
static inline uint32_t memo_relation(const lane_batch *lb, uint64_t w, uint32_t thread) {
    if (gr_fsm_who(w) == GR_FSM_WHO_GRID) return 0;
    return rep_relation(lb->f, lb->block, lb->warp, thread, gr_fsm_rep(w));
}

static __attribute__((noinline)) void report_lane(lane_batch *lb, uint32_t thread, uint64_t addr,
                                                  const gr_fsm_result *r) {
    gr_access a = *lb->proto;
    a.thread = thread;
    count_action(lb->f, &a, lb->block, addr, r);
}

/* Replays the batch's latest slow transition on word *w when it applies; false otherwise. */
static inline bool lane_replay(lane_batch *lb, uint32_t thread, uint64_t *w, uint64_t single,
                               uint64_t addr) {
    const slow_memo *m = &lb->memo;
    uint64_t old = *w;
    if (!m->valid || ((old ^ m->w) & ~GR_FSM_M_REP) != 0 ||
        ((single ^ m->single) & ~GR_FSM_M_REP) != 0 || memo_relation(lb, old, thread) != m->rel)
        return false;
    *w = m->out | (single & GR_FSM_M_REP);
    if (m->r.action != GR_FSM_ACT_NONE) {
        gr_fsm_result r = m->r;
        r.other_thread = gr_fsm_rep(old);
        report_lane(lb, thread, addr, &r);
    }
    return true;
}

/* The slow transition of one lane's granule; remembered for the next lanes when the lanes are
 * in step. Out of line: the lane loop stays small. */
static __attribute__((noinline)) void lane_slow(lane_batch *lb, const fsm_thread *t,
                                                const gr_fsm_access *fa, uint64_t *w,
                                                uint64_t single, uint64_t addr) {
    gr_fsm *f = lb->f;
    uint64_t old = *w;
    slow_context(f, t, old);
    gr_fsm_result r = {0};
    *w = gr_fsm_update_slow(old, single, fa, &f->ctx, &r);
    if (lb->in_step < 0) lb->in_step = lanes_in_step(lb->lane0, lb->lane_mask);
    if (lb->in_step)
        lb->memo = (slow_memo){.valid = true, .w = old & ~GR_FSM_M_REP,
                               .single = single & ~GR_FSM_M_REP,
                               .rel = memo_relation(lb, old, fa->thread),
                               .out = *w & ~GR_FSM_M_REP, .r = r};
    if (r.action != GR_FSM_ACT_NONE) report_lane(lb, fa->thread, addr, &r);
}

/* Plain accesses of one instruction by lanes of one block, in lane order: the same
 * transitions as gr_fsm_feed_access() lane by lane, with what the lanes share computed once
 * (the access's fields, the block's context, the shadow page while the lanes stay on it, and
 * when the lanes are in step, a slow transition they repeat). */
static bool feed_plain_lanes(gr_fsm *f, const gr_access *proto, uint32_t lane_mask,
                             uint32_t first_thread, const uint64_t *addr, gr_error *err) {
    fsm_thread *lane0 = &f->threads[first_thread];
    const fsm_thread *t0 = &lane0[__builtin_ctz(lane_mask)];
    lane_batch lb = {.f = f, .proto = proto, .block = t0->block,
                     .warp = t0->warp - t0->block * f->wpb, .lane0 = lane0,
                     .lane_mask = lane_mask, .in_step = -1};
    f->ctx.block_regular = f->blocks[lb.block].regular;
    f->ctx.block_epochs = f->blocks[lb.block].epochs;
    uint32_t size = proto->size, write = proto->kind == GR_ACCESS_WRITE;
    uint32_t instr = proto->instr >= GR_FSM_INSTR_UNKNOWN ? GR_FSM_INSTR_UNKNOWN : proto->instr;
    /* The shadow word of the access alone, less its thread, epochs and bytes. */
    uint64_t common = gr_fsm_pack(GR_FSM_WHO_ONE, GR_FSM_EXACT, 0, 0, 0, 0, 1u,
                                  write ? GR_FSM_TRI_ALL : GR_FSM_TRI_NONE, GR_FSM_TRI_ALL, 0, 0,
                                  instr);
    uint64_t page = UINT64_MAX, *words = NULL;
    for (uint32_t m = lane_mask; m; m &= m - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(m);
        fsm_thread *t = &lane0[l];
        t->touched = t->ever_touched = 1;
        gr_fsm_access fa = {.thread = first_thread + l, .bar = t->bar, .wep = t->wep,
                            .instr = instr, .write = write, .bar_lag = t->bar - t->wbar};
        uint64_t tsingle = common | (uint64_t)fa.thread << 4 | (uint64_t)(fa.bar & 0xffu) << 24 |
                           (uint64_t)(fa.wep & 0xffu) << 32;
        uint64_t lo = addr[l], end = lo + size;
        for (uint64_t g = lo & ~(uint64_t)3; g < end; g += 4, lo = g) {
            uint64_t hi = g + 4 < end ? g + 4 : end;
            fa.bytes = ((1u << (hi - lo)) - 1u) << (lo - g);
            uint64_t gi = g >> 2;
            if (gi / PAGE_WORDS != page) {
                page = gi / PAGE_WORDS;
                uint64_t key = page_key(proto->space, lb.block, page);
                words = f->last && f->last->key == key ? f->last->words
                                                        : shadow_words(f, key, err);
                if (!words) return false;
            }
            uint64_t *w = &words[gi % PAGE_WORDS], nw;
            uint64_t single = tsingle | (uint64_t)fa.bytes << 40;
            if (gr_fsm_quick(*w, single, &fa, &f->ctx, &nw)) *w = nw;
            else if (!lane_replay(&lb, fa.thread, w, single, lo))
                lane_slow(&lb, t, &fa, w, single, lo);
        }
    }
    return true;
}

bool gr_fsm_feed_lanes(gr_fsm *f, const gr_access *proto, uint32_t lane_mask,
                       uint32_t first_thread, const uint64_t *addr, gr_error *err) {
    if (proto->space > GR_SPACE_SHARED || lane_mask == 0) return true;
    uint32_t last = 31u - (uint32_t)__builtin_clz(lane_mask);
    uint32_t first = (uint32_t)__builtin_ctz(lane_mask);
    bool plain = proto->kind <= GR_ACCESS_WRITE && !(proto->flags & GR_ACCESS_VOLATILE);
    if (!plain || proto->size == 0 || proto->size > 16 ||
        (uint64_t)first_thread + last >= f->nthreads ||
        f->threads[first_thread + first].block != f->threads[first_thread + last].block)
        return feed_lanes_one_by_one(f, proto, lane_mask, first_thread, addr, err);
    return feed_plain_lanes(f, proto, lane_mask, first_thread, addr, err);
}

/* Live lanes of a warp (exited threads left out). */
static uint32_t live_mask(const gr_fsm *f, uint32_t block, uint32_t warp) {
    uint32_t mask = 0, base = block * f->tpb + warp * f->ws;
    for (uint32_t l = 0; l < f->ws && warp * f->ws + l < f->tpb; l++)
        if (!f->threads[base + l].exited) mask |= 1u << l;
    return mask;
}

static void warp_sync(gr_fsm *f, uint32_t block, uint32_t warp, uint32_t mask) {
    uint32_t base = block * f->tpb + warp * f->ws;
    uint32_t live = live_mask(f, block, warp);
    uint8_t taint = 0;
    for (uint32_t l = 0; l < f->ws && warp * f->ws + l < f->tpb; l++)
        if ((mask >> l & 1u) && f->threads[base + l].taint > taint) taint = f->threads[base + l].taint;
    bool full = (mask & live) == live;
    if (!full) f->warp_regular[block * f->wpb + warp] = 0;
    for (uint32_t l = 0; l < f->ws && warp * f->ws + l < f->tpb; l++) {
        if (!(mask >> l & 1u)) continue;
        fsm_thread *t = &f->threads[base + l];
        if (full) t->wep++;
        if (taint > t->taint) t->taint = taint;
    }
}

/* An instance is "full" when every live thread of the block arrived at it as its same n-th
 * barrier: then a thread's epoch (instances arrived at) says which barriers lie between two
 * accesses. Anything else (partial thread counts, mismatched sequences) makes the block
 * irregular: its same-block orderings become undecided. */
static void barrier_arrive(gr_fsm *f, fsm_thread *t, uint32_t id, bool waits) {
    fsm_block *b = &f->blocks[t->block];
    fsm_barrier *bar = &b->bar[id];
    if (bar->arrived == 0) {
        bar->epoch = t->bar;
        b->pending++;
    } else if (bar->epoch != t->bar) {
        b->regular = b->epochs = 0;
    }
    bar->arrived++;
    if (t->taint > bar->taint) bar->taint = t->taint;
    t->touched = 0;
    if (waits) {
        t->waiting = (uint8_t)(id + 1);
        return;
    }
    /* bar.arrive: the thread moves to the next epoch at once, without acquiring anything; its
     * warp's lanes no longer share warp epochs until they all wait at one instance. Its epoch
     * may now pass instances it did not wait at, while a thread that exited no longer arrives
     * at later instances, so "waited at a later instance" would stop meaning "ordered after
     * it": bar.arrive and an exit after accesses together make the block irregular. */
    b->split = 1;
    if (b->exited_after_access) b->regular = b->epochs = 0;
    t->bar++;
    t->wep = 0;
    f->warp_regular[t->warp] = 0;
}

static bool barrier_complete(gr_fsm *f, uint32_t block, uint32_t id, gr_error *err) {
    fsm_block *b = &f->blocks[block];
    fsm_barrier *bar = &b->bar[id];
    if (bar->arrived == 0)
        return gr_fail(err, GR_ERR_INTERNAL, "barrier %u of block %u completes with no arrival", id,
                       block);
    if (bar->arrived - bar->gone != b->live) b->regular = b->epochs = 0;
    fsm_thread *bt = &f->threads[block * f->tpb];
    for (uint32_t i = 0; i < f->tpb; i++) {
        fsm_thread *t = &bt[i];
        if (t->exited || t->waiting != id + 1) continue;
        /* Over-approximating what the waiters acquire only widens the taint: conservative. */
        if (bar->taint > t->taint) t->taint = bar->taint;
        t->waiting = 0;
        t->bar++;
        t->wbar = t->bar;
        t->wep = 0;
    }
    /* A warp whose live lanes all waited here starts a fresh warp epoch together. */
    for (uint32_t w = 0; w < f->wpb; w++) {
        bool all = true;
        for (uint32_t l = w * f->ws; l < (w + 1) * f->ws && l < f->tpb; l++)
            if (!bt[l].exited && (bt[l].bar != bar->epoch + 1 || bt[l].wbar != bt[l].bar)) all = false;
        f->warp_regular[block * f->wpb + w] = all;
    }
    memset(bar, 0, sizeof *bar);
    b->pending--;
    return true;
}

static bool warp_event(gr_fsm *f, const gr_event *ev, gr_error *err) {
    if (ev->u.warp.block >= f->nblocks || ev->u.warp.warp >= f->wpb)
        return gr_fail(err, GR_ERR_INTERNAL, "warp event names block %u warp %u", ev->u.warp.block,
                       ev->u.warp.warp);
    warp_sync(f, ev->u.warp.block, ev->u.warp.warp, ev->u.warp.mask);
    return true;
}

bool gr_fsm_event_lanes(gr_fsm *f, const gr_event *ev, uint32_t lane_mask,
                        uint32_t first_thread, gr_error *err) {
    if (ev->type == GR_EV_BARRIER_ARRIVE && lane_mask &&
        (uint64_t)first_thread + (31u - (uint32_t)__builtin_clz(lane_mask)) < f->nthreads &&
        ev->u.arrive.barrier < MAX_BARRIERS) {
        for (uint32_t m = lane_mask; m; m &= m - 1)
            barrier_arrive(f, &f->threads[first_thread + (uint32_t)__builtin_ctz(m)],
                           ev->u.arrive.barrier, ev->u.arrive.waits);
        return true;
    }
    gr_event e = *ev;
    for (uint32_t m = lane_mask; m; m &= m - 1) {
        if (!gr_event_set_thread(&e, first_thread + (uint32_t)__builtin_ctz(m)))
            return gr_fail(err, GR_ERR_INTERNAL, "event type %u is not a per-thread event",
                           e.type);
        if (!gr_fsm_event(f, &e, err)) return false;
    }
    return true;
}

bool gr_fsm_event(gr_fsm *f, const gr_event *ev, gr_error *err) {
    switch ((gr_event_type)ev->type) {
    case GR_EV_ACCESS: return gr_fsm_feed_access(f, &ev->u.access, err);
    case GR_EV_BARRIER_ARRIVE: {
        if (!check_thread(f, ev->u.arrive.thread, err)) return false;
        if (ev->u.arrive.barrier >= MAX_BARRIERS)
            return gr_fail(err, GR_ERR_INTERNAL, "barrier id %u out of range", ev->u.arrive.barrier);
        barrier_arrive(f, &f->threads[ev->u.arrive.thread], ev->u.arrive.barrier,
                       ev->u.arrive.waits);
        return true;
    }
    case GR_EV_BARRIER_COMPLETE:
        if (ev->u.complete.block >= f->nblocks || ev->u.complete.barrier >= MAX_BARRIERS)
            return gr_fail(err, GR_ERR_INTERNAL, "barrier completion names block %u barrier %u",
                           ev->u.complete.block, ev->u.complete.barrier);
        return barrier_complete(f, ev->u.complete.block, ev->u.complete.barrier, err);
    case GR_EV_WARP_STEP:
        if (!f->lockstep) return true;
        /* In lockstep a converged step synchronizes its lanes, like a warp sync. */
        return warp_event(f, ev, err);
    case GR_EV_WARP_SYNC:
        return warp_event(f, ev, err);
    case GR_EV_FENCE: {
        if (!check_thread(f, ev->u.fence.thread, err)) return false;
        fsm_thread *t = &f->threads[ev->u.fence.thread];
        uint8_t level = scope_level(ev->u.fence.scope);
        if (t->strong_read) acquire(f, t, level);
        if (level > t->fence_level) t->fence_level = level;
        return true;
    }
    case GR_EV_THREAD_EXIT: {
        if (!check_thread(f, ev->u.exit.thread, err)) return false;
        fsm_thread *t = &f->threads[ev->u.exit.thread];
        if (t->exited) return true;
        fsm_block *b = &f->blocks[t->block];
        t->exited = 1;
        b->live--;
        /* Its latest accesses will never be ordered by the barriers the others still pass. */
        if (t->touched) b->regular = 0; /* epochs stay comparable: not b->epochs */
        if (t->ever_touched) {
            b->exited_after_access = 1;
            if (b->split) b->regular = b->epochs = 0;
        }
        /* Pending instances it arrived at (bar.arrive) count it no longer as a live thread. */
        for (uint32_t id = 0; b->pending && id < MAX_BARRIERS; id++)
            if (b->bar[id].arrived && b->bar[id].epoch < t->bar) b->bar[id].gone++;
        return true;
    }
    case GR_EV_KERNEL_END:
        reset_state(f);
        return true;
    }
    return gr_fail(err, GR_ERR_INTERNAL, "unknown event type %u", ev->type);
}
