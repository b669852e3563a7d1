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
    /* On a warp's first lane: 1 when all lanes of the warp share bar, wbar, wep and taint (so
     * the lanes of one instruction share their synchronization state), 0 when they may not.
     * Set only where that was checked; every per-thread change of those fields clears or
     * recomputes it. (Kept here so that copying the threads copies it.) */
    uint8_t warp_step;
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
    /* Barrier epochs are comparable (gr_fsm_ctx.block_epochs): every instance's arrivers came
     * from one epoch, no two instances from the same one, and no warp sync joined lanes of
     * different epochs. Then every chain of barriers and warp syncs from one access to another
     * moves to a later epoch, so accesses at one epoch are unordered by them, whatever exits
     * and partial instances did to `regular`. */
    uint8_t epochs;
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
    uint32_t tpb, ws, wpb, nblocks, nthreads; /* ws <= 32: lanes are bits of a mask */
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
        f->threads[t].warp_step = 1;
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
                "the shadow-FSM detector tracks at most %u threads per launch (this one has %llu):"
                " check a launch of fewer blocks, or run this one on the simulator with"
                " --detector hb, whose memory grows with the blocks and the memory the kernel"
                " touches rather than with the threads (bounded by --memory-limit)",
                GR_FSM_MAX_THREADS, (unsigned long long)(tpb * nb));
        return NULL;
    }
    if (gr_geom_warp_size(geom) > 32) {
        gr_fail(err, GR_ERR_UNSUPPORTED, "warps of more than 32 lanes (%u)",
                gr_geom_warp_size(geom));
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

/* The first lane of warp `warp` of `block` (it holds the warp's warp_step), and of t's warp. */
static inline fsm_thread *warp_lead(const gr_fsm *f, uint32_t block, uint32_t warp) {
    return &f->threads[block * f->tpb + warp * f->ws];
}
static inline fsm_thread *lead_of(const gr_fsm *f, const fsm_thread *t) {
    return warp_lead(f, t->block, t->warp - t->block * f->wpb);
}

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
    if (got > t->taint) {
        t->taint = got;
        lead_of(f, t)->warp_step = 0;
    }
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
        .block_private = a->space == GR_SPACE_SHARED,
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
    f->ctx.block_split = f->blocks[t->block].split;
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
    f->ctx.block_split = f->blocks[t->block].split;
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
 * warp-in-block `warp`): whether they are one thread, share the block, and within the block
 * share the warp (it asks about the warp only then), and the release flags of rep's block. */
static inline uint32_t rep_relation(const gr_fsm *f, uint32_t block, uint32_t warp,
                                    uint32_t thread, uint32_t rep) {
    uint32_t in_block = rep - block * f->tpb;
    if (in_block >= f->tpb)
        return (uint32_t)f->block_rel[gr_fsm_div(rep, f->tpb, f->ctx.tpb_recip)] << 3;
    return 2u | (uint32_t)(rep == thread) | (uint32_t)(in_block - warp * f->ws < f->ws) << 2 |
           (uint32_t)f->block_rel[block] << 3;
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

/* What one call of feed_lanes_batch() shares between its lanes. */
typedef struct lane_batch {
    gr_fsm *f;
    const gr_access *proto;
    uint32_t block, warp; /* warp within the block */
    fsm_thread *lane0;
    uint32_t lane_mask;
    int in_step;          /* lanes_in_step(), computed at the first slow transition: -1 not yet */
    slow_memo memo;
    uint64_t page, *words; /* the shadow page the lanes are on (UINT64_MAX: none yet) */
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

/* The batch's shadow page number `page`, or false when out of memory. */
static __attribute__((noinline)) bool lane_page(lane_batch *lb, uint64_t page, gr_error *err) {
    gr_fsm *f = lb->f;
    uint64_t key = page_key(lb->proto->space, lb->block, page);
    lb->words = f->last && f->last->key == key ? f->last->words : shadow_words(f, key, err);
    lb->page = page;
    return lb->words != NULL;
}

/* The synchronization effects of a relaxed atomic by lane thread `t`, after its transition
 * (as feed_general() does). A release changes what later slow transitions see: the batch's
 * remembered transition no longer applies. */
static __attribute__((noinline)) void lane_atomic_effects(lane_batch *lb, fsm_thread *t,
                                                          bool reads, bool writes) {
    if (writes && t->fence_level) lb->memo.valid = false;
    strong_effects(lb->f, t, lb->proto, true, reads, writes);
}

/* The lanes' accesses in lane order. `step`: the lanes share one warp's synchronization state
 * (warp_step), read once from the first lane; otherwise each lane's own. Inlined twice, with
 * `step` constant. */
static inline __attribute__((always_inline)) bool
batch_loop(lane_batch *lb, uint32_t lane_mask, gr_fsm_access fa, uint64_t common,
           const uint64_t *addr, uint32_t first_thread, bool step, bool atomic_effects, bool reads,
           gr_error *err) {
    gr_fsm *f = lb->f;
    uint32_t size = lb->proto->size;
    const fsm_thread *t0 = &lb->lane0[__builtin_ctz(lane_mask)];
    uint64_t sync = 0;
    if (step) {
        fa.bar = t0->bar;
        fa.wep = t0->wep;
        fa.bar_lag = t0->bar - t0->wbar;
        sync = (uint64_t)(fa.bar & 0xffu) << 24 | (uint64_t)(fa.wep & 0xffu) << 32;
    }
    for (uint32_t m = lane_mask; m; m &= m - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(m);
        fsm_thread *t = &lb->lane0[l];
        if (!step) {
            t->touched = t->ever_touched = 1;
            fa.bar = t->bar;
            fa.wep = t->wep;
            fa.bar_lag = t->bar - t->wbar;
            sync = (uint64_t)(fa.bar & 0xffu) << 24 | (uint64_t)(fa.wep & 0xffu) << 32;
        }
        fa.thread = first_thread + l;
        uint64_t tsingle = common | sync | (uint64_t)fa.thread << 4;
        uint64_t lo = addr[l], end = lo + size;
        for (uint64_t g = lo & ~(uint64_t)3; g < end; g += 4, lo = g) {
            uint64_t hi = g + 4 < end ? g + 4 : end;
            fa.bytes = ((1u << (hi - lo)) - 1u) << (lo - g);
            uint64_t gi = g >> 2;
            if (gi / PAGE_WORDS != lb->page && !lane_page(lb, gi / PAGE_WORDS, err)) return false;
            uint64_t *w = &lb->words[gi % PAGE_WORDS], nw;
            uint64_t single = tsingle | (uint64_t)fa.bytes << 40;
            if (gr_fsm_quick(*w, single, &fa, &f->ctx, &nw)) *w = nw;
            else if (!lane_replay(lb, fa.thread, w, single, lo))
                lane_slow(lb, t, &fa, w, single, lo);
        }
        if (atomic_effects) lane_atomic_effects(lb, t, reads, fa.write);
    }
    return true;
}

/* One lane of a batch in step whose access spans granules: batch_loop() for it alone. */
static __attribute__((noinline)) bool lane_spanning(lane_batch *lb, uint32_t lane,
                                                    const gr_fsm_access *fa, uint64_t common,
                                                    const uint64_t *addr, uint32_t first_thread,
                                                    gr_error *err) {
    return batch_loop(lb, 1u << lane, *fa, common, addr, first_thread, true, false, false, err);
}

/* lane_slow() for a lane of a batch in step: the access as the rules see it, from the lanes'
 * shared fields (`fa`), the lane's thread and the bytes in `single`. */
static __attribute__((noinline)) void lane_slow_in_step(lane_batch *lb, uint32_t lane,
                                                        gr_fsm_access fa, uint32_t thread,
                                                        uint64_t *w, uint64_t single,
                                                        uint64_t addr) {
    fa.thread = thread;
    fa.bytes = gr_fsm_bytes(single);
    lane_slow(lb, &lb->lane0[lane], &fa, w, single, addr);
}

/* gr_fsm_quick(w, single, a, ctx) for an access `a` with the shared fields of lanes in step,
 * precomputed: the same decision (the new word is then `single`). */
typedef struct quick_in_step {
    uint64_t cover_mask;  /* bits of the word that must be clear for `a` to cover its members */
    uint32_t drops;       /* block-private and not split: barrier-ordered members go anyway */
    uint32_t regular;     /* ctx->block_regular */
    uint32_t block_base;  /* the block's first thread: "rep in the block" is a range check */
    uint32_t tpb, bar, bar_lag;
} quick_in_step;

static inline bool quick_lane(uint64_t w, uint64_t single, const quick_in_step *q) {
    uint64_t diff = w ^ single;
    if ((diff & GR_FSM_ALL_BUT_INSTR) == 0 || (w & 0xfu) == 0) return true;
    bool covers = (w & q->cover_mask) == 0;
    if (!covers && !q->drops) return false;
    uint32_t state = gr_fsm_state(w); /* who * 3 + epoch status */
    if (covers && state / 3u == GR_FSM_WHO_ONE && (diff & GR_FSM_M_REP) == 0) return true; /* same thread */
    if (!q->regular || state / 3u > GR_FSM_WHO_BLOCK) return false;
    if (gr_fsm_rep(w) - q->block_base >= q->tpb) return false;
    uint32_t back = (q->bar - gr_fsm_bar(w)) & 0xffu;
    return back < 240u && back > q->bar_lag;
}

/* The batch's lanes, in step, accesses of at most 4 bytes: most lie within one granule and
 * take a lean path (no per-lane thread state; the quick decision with precomputed fields). */
static bool batch_in_step(lane_batch *lb, gr_fsm_access fa, uint64_t common,
                          const uint64_t *addr, uint32_t first_thread, bool atomic_effects,
                          bool reads, gr_error *err) {
    gr_fsm *f = lb->f;
    const fsm_thread *t0 = &lb->lane0[__builtin_ctz(lb->lane_mask)];
    fa.bar = t0->bar;
    fa.wep = t0->wep;
    fa.bar_lag = t0->bar - t0->wbar;
    quick_in_step q = {
        .cover_mask = (fa.write ? 0u : GR_FSM_M_WTRI) |
                      (fa.atomic ? GR_FSM_M_PTRI | (fa.cta ? 0u : GR_FSM_M_CTA) : 0u),
        .drops = fa.block_private && !f->ctx.block_split,
        .regular = f->ctx.block_regular, .block_base = lb->block * f->tpb, .tpb = f->tpb,
        .bar = fa.bar, .bar_lag = fa.bar_lag};
    uint64_t base = common | (uint64_t)(fa.bar & 0xffu) << 24 | (uint64_t)(fa.wep & 0xffu) << 32;
    uint32_t size = lb->proto->size, size_bytes = (1u << size) - 1u;
    for (uint32_t m = lb->lane_mask; m; m &= m - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(m);
        uint64_t a = addr[l];
        uint32_t off = (uint32_t)a & 3u;
        if (off + size > 4u) {
            if (!lane_spanning(lb, l, &fa, common, addr, first_thread, err)) return false;
        } else {
            uint64_t gi = a >> 2;
            if (gi / PAGE_WORDS != lb->page && !lane_page(lb, gi / PAGE_WORDS, err)) return false;
            uint64_t *w = &lb->words[gi % PAGE_WORDS];
            uint32_t thread = first_thread + l;
            uint64_t single = base | (uint64_t)thread << 4 | (uint64_t)(size_bytes << off) << 40;
            if (quick_lane(*w, single, &q)) *w = single;
            else if (!lane_replay(lb, thread, w, single, a))
                lane_slow_in_step(lb, l, fa, thread, w, single, a);
        }
        if (atomic_effects) lane_atomic_effects(lb, &lb->lane0[l], reads, fa.write);
    }
    return true;
}

/* Plain and relaxed atomic accesses of one instruction by lanes of one block, in lane order:
 * the same transitions as gr_fsm_feed_access() lane by lane, with what the lanes share
 * computed once (the access's fields, the block's context, the shadow page while the lanes
 * stay on it, the lanes' synchronization state when their warp is in step, and, when the
 * lanes are in step, a slow transition they repeat). */
static bool feed_lanes_batch(gr_fsm *f, const gr_access *proto, uint32_t lane_mask,
                             uint32_t first_thread, const uint64_t *addr, gr_error *err) {
    fsm_thread *lane0 = &f->threads[first_thread];
    const fsm_thread *t0 = &lane0[__builtin_ctz(lane_mask)];
    const fsm_thread *tn = &lane0[31u - (uint32_t)__builtin_clz(lane_mask)];
    /* Lanes l0 < l1 of one warp are threads t0->lane .. tn->lane of it. */
    bool step = t0->warp == tn->warp && lead_of(f, t0)->warp_step;
    lane_batch lb = {.f = f, .proto = proto, .block = t0->block,
                     .warp = t0->warp - t0->block * f->wpb, .lane0 = lane0,
                     .lane_mask = lane_mask, .in_step = step ? 1 : -1, .page = UINT64_MAX};
    f->ctx.block_regular = f->blocks[lb.block].regular;
    f->ctx.block_epochs = f->blocks[lb.block].epochs;
    f->ctx.block_split = f->blocks[lb.block].split;
    bool atomic = proto->kind == GR_ACCESS_ATOMIC;
    bool write = proto->kind == GR_ACCESS_WRITE || (atomic && proto->op != GR_ATOM_LD);
    bool reads = atomic && proto->op != GR_ATOM_ST && proto->op != GR_ATOM_RED;
    bool cta = atomic && proto->scope == GR_SCOPE_CTA;
    uint32_t instr = proto->instr >= GR_FSM_INSTR_UNKNOWN ? GR_FSM_INSTR_UNKNOWN : proto->instr;
    gr_fsm_access fa = {.instr = instr, .write = write, .atomic = atomic, .cta = cta,
                        .block_private = proto->space == GR_SPACE_SHARED};
    /* The shadow word of the access alone, less its thread, epochs and bytes. */
    uint64_t common = gr_fsm_pack(GR_FSM_WHO_ONE, GR_FSM_EXACT, 0, 0, 0, 0, 1u,
                                  write ? GR_FSM_TRI_ALL : GR_FSM_TRI_NONE,
                                  atomic ? GR_FSM_TRI_NONE : GR_FSM_TRI_ALL, cta, 0, instr);
    if (!step)
        return batch_loop(&lb, lane_mask, fa, common, addr, first_thread, false, atomic, reads,
                          err);
    for (uint32_t m = lane_mask; m; m &= m - 1)
        lane0[__builtin_ctz(m)].touched = lane0[__builtin_ctz(m)].ever_touched = 1;
    if (proto->size > 4)
        return batch_loop(&lb, lane_mask, fa, common, addr, first_thread, true, atomic, reads,
                          err);
    return batch_in_step(&lb, fa, common, addr, first_thread, atomic, reads, err);
}

bool gr_fsm_feed_lanes(gr_fsm *f, const gr_access *proto, uint32_t lane_mask,
                       uint32_t first_thread, const uint64_t *addr, gr_error *err) {
    if (proto->space > GR_SPACE_SHARED || lane_mask == 0) return true;
    uint32_t last = 31u - (uint32_t)__builtin_clz(lane_mask);
    uint32_t first = (uint32_t)__builtin_ctz(lane_mask);
    /* Plain accesses, and relaxed atomics (their only effects: a strong read, and a release
     * where the thread fenced before). */
    bool batchable = proto->flags & GR_ACCESS_VOLATILE ? false
                     : proto->kind == GR_ACCESS_ATOMIC ? proto->sem == GR_SEM_RELAXED
                                                       : proto->kind <= GR_ACCESS_WRITE;
    if (!batchable || proto->size == 0 || proto->size > 16 ||
        (uint64_t)first_thread + last >= f->nthreads ||
        f->threads[first_thread + first].block != f->threads[first_thread + last].block)
        return feed_lanes_one_by_one(f, proto, lane_mask, first_thread, addr, err);
    return feed_lanes_batch(f, proto, lane_mask, first_thread, addr, err);
}

/* Live lanes of a warp (exited threads left out). */
static uint32_t live_mask(const gr_fsm *f, uint32_t block, uint32_t warp) {
    uint32_t mask = 0, base = block * f->tpb + warp * f->ws;
    for (uint32_t l = 0; l < f->ws && warp * f->ws + l < f->tpb; l++)
        if (!f->threads[base + l].exited) mask |= 1u << l;
    return mask;
}

/* warp_step of warp `warp` of `block`, from its lanes. */
static void refresh_warp_step(gr_fsm *f, uint32_t block, uint32_t warp) {
    fsm_thread *lane0 = warp_lead(f, block, warp);
    uint32_t lanes = f->tpb - warp * f->ws < f->ws ? f->tpb - warp * f->ws : f->ws;
    uint8_t step = 1;
    for (uint32_t l = 1; l < lanes; l++)
        if (lane0[l].bar != lane0[0].bar || lane0[l].wbar != lane0[0].wbar ||
            lane0[l].wep != lane0[0].wep || lane0[l].taint != lane0[0].taint)
            step = 0;
    lane0->warp_step = step;
}

static void warp_sync(gr_fsm *f, uint32_t block, uint32_t warp, uint32_t mask) {
    uint32_t base = block * f->tpb + warp * f->ws;
    uint32_t live = live_mask(f, block, warp);
    uint8_t taint = 0;
    for (uint32_t l = 0; l < f->ws && warp * f->ws + l < f->tpb; l++)
        if ((mask >> l & 1u) && f->threads[base + l].taint > taint) taint = f->threads[base + l].taint;
    bool full = (mask & live) == live;
    if (!full) f->warp_regular[block * f->wpb + warp] = 0;
    /* Lanes at different barrier epochs (one arrived without waiting, or a partial instance
     * split the warp): the sync orders a lane's accesses before a lane at an earlier epoch,
     * which may then reach a barrier with others at that epoch, so same-epoch accesses may be
     * ordered. Lanes at one epoch of which one waited later (the other only arrived): the
     * arriver becomes ordered after what its bar_lag says it is not. */
    uint32_t sync_live = mask & live;
    if (sync_live) {
        const fsm_thread *t0 = &f->threads[base + (uint32_t)__builtin_ctz(sync_live)];
        fsm_block *b = &f->blocks[block];
        for (uint32_t m = sync_live; m; m &= m - 1) {
            const fsm_thread *t = &f->threads[base + (uint32_t)__builtin_ctz(m)];
            if (t->bar != t0->bar) b->regular = b->epochs = 0;
            else if (t->wbar != t0->wbar) b->regular = 0;
        }
    }
    for (uint32_t l = 0; l < f->ws && warp * f->ws + l < f->tpb; l++) {
        if (!(mask >> l & 1u)) continue;
        fsm_thread *t = &f->threads[base + l];
        if (full) t->wep++;
        if (taint > t->taint) t->taint = taint;
    }
    refresh_warp_step(f, block, warp);
}

/* The first arrival at an instance of barrier `id` of `block`, from `epoch`. Epochs name
 * instances (a thread's n-th instance is every thread's n-th) only while no other instance
 * came from the same epoch: a pending one, or one a thread already passed (it is past
 * `epoch`). Two subsets meeting at separate instances stay unordered with each other, but
 * "waited since the epoch of a write" would no longer mean "waited where the writer arrived". */
static void start_instance(gr_fsm *f, uint32_t block, uint32_t id, uint32_t epoch) {
    fsm_block *b = &f->blocks[block];
    b->bar[id].epoch = epoch;
    b->pending++;
    if (!b->epochs) return;
    bool twice = false;
    for (uint32_t j = 0; j < MAX_BARRIERS; j++)
        twice |= j != id && b->bar[j].arrived && b->bar[j].epoch == epoch;
    const fsm_thread *t = &f->threads[block * f->tpb];
    for (uint32_t i = 0; i < f->tpb && !twice; i++) twice = t[i].bar > epoch;
    if (twice) b->regular = b->epochs = 0;
}

/* An instance is "full" when every live thread of the block arrived at it as its same n-th
 * barrier: then a thread's epoch (instances arrived at) says which barriers lie between two
 * accesses. Anything else (partial thread counts, mismatched sequences) makes the block
 * irregular: its same-block orderings become undecided. */
static void barrier_arrive(gr_fsm *f, fsm_thread *t, uint32_t id, bool waits) {
    fsm_block *b = &f->blocks[t->block];
    fsm_barrier *bar = &b->bar[id];
    if (bar->arrived == 0) {
        start_instance(f, t->block, id, t->bar);
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
     * it": bar.arrive and an exit after accesses together make the block irregular. Epochs
     * stay comparable (an arrival still moves to the instance's next epoch). */
    b->split = 1;
    if (b->exited_after_access) b->regular = 0;
    t->bar++;
    t->wep = 0;
    f->warp_regular[t->warp] = 0;
    lead_of(f, t)->warp_step = 0;
}

/* barrier_arrive(f, t, id, true) for each lane t of `lane_mask`, lanes of one warp in step:
 * they share their barrier epoch and taint, so the instance's bookkeeping is done once. */
static void arrive_in_step(gr_fsm *f, fsm_thread *lane0, uint32_t lane_mask, uint32_t id) {
    const fsm_thread *t0 = &lane0[__builtin_ctz(lane_mask)];
    fsm_block *b = &f->blocks[t0->block];
    fsm_barrier *bar = &b->bar[id];
    if (bar->arrived == 0) {
        start_instance(f, t0->block, id, t0->bar);
    } else if (bar->epoch != t0->bar) {
        b->regular = b->epochs = 0;
    }
    bar->arrived += gr_lane_count(lane_mask);
    if (t0->taint > bar->taint) bar->taint = t0->taint;
    for (uint32_t m = lane_mask; m; m &= m - 1) {
        fsm_thread *t = &lane0[__builtin_ctz(m)];
        t->touched = 0;
        t->waiting = (uint8_t)(id + 1);
    }
}

/* Every lane of the warp (`lanes` from lane0) is live and waits at `waiting` (id + 1). */
static bool warp_waits_whole(const fsm_thread *lane0, uint32_t lanes, uint8_t waiting) {
    bool all = true;
    for (uint32_t l = 0; l < lanes; l++) all &= !lane0[l].exited & (lane0[l].waiting == waiting);
    return all;
}

static bool barrier_complete(gr_fsm *f, uint32_t block, uint32_t id, gr_error *err) {
    fsm_block *b = &f->blocks[block];
    fsm_barrier *bar = &b->bar[id];
    if (bar->arrived == 0)
        return gr_fail(err, GR_ERR_INTERNAL, "barrier %u of block %u completes with no arrival", id,
                       block);
    /* An instance without every live thread (a thread count below the block's) leaves the
     * others behind: a later epoch no longer means "waited after them". Its arrivers all came
     * from one epoch (barrier_arrive), so epochs stay comparable. */
    if (bar->arrived - bar->gone != b->live) b->regular = 0;
    /* Warp by warp, in one pass over its lanes: the waiters move on, and the warp's flags are
     * recomputed (a lane's update touches only that lane). */
    uint8_t waiting = (uint8_t)(id + 1), taint = bar->taint;
    uint32_t next = bar->epoch + 1;
    for (uint32_t w = 0; w < f->wpb; w++) {
        fsm_thread *lane0 = warp_lead(f, block, w);
        uint32_t lanes = f->tpb - w * f->ws < f->ws ? f->tpb - w * f->ws : f->ws;
        if (lane0->warp_step && warp_waits_whole(lane0, lanes, waiting)) {
            /* The common case: a warp in step that waits here as a whole moves on as a whole,
             * in step, to a fresh warp epoch. */
            uint32_t nbar = lane0->bar + 1;
            uint8_t ntaint = taint > lane0->taint ? taint : lane0->taint;
            for (uint32_t l = 0; l < lanes; l++) {
                fsm_thread *t = &lane0[l];
                t->taint = ntaint;
                t->waiting = 0;
                t->bar = t->wbar = nbar;
                t->wep = 0;
            }
            f->warp_regular[block * f->wpb + w] = nbar == next;
            continue;
        }
        bool all = true, step = true;
        for (uint32_t l = 0; l < lanes; l++) {
            fsm_thread *t = &lane0[l];
            if (!t->exited && t->waiting == waiting) {
                /* Over-approximating what the waiters acquire only widens the taint:
                 * conservative. */
                if (taint > t->taint) t->taint = taint;
                t->waiting = 0;
                t->bar++;
                t->wbar = t->bar;
                t->wep = 0;
            }
            /* A warp whose live lanes all waited here starts a fresh warp epoch together. */
            if (!t->exited && (t->bar != next || t->wbar != t->bar)) all = false;
            if (t->bar != lane0->bar || t->wbar != lane0->wbar || t->wep != lane0->wep ||
                t->taint != lane0->taint)
                step = false;
        }
        f->warp_regular[block * f->wpb + w] = all;
        lane0->warp_step = step;
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
        if (ev->u.arrive.waits) {
            fsm_thread *lane0 = &f->threads[first_thread];
            const fsm_thread *t0 = &lane0[__builtin_ctz(lane_mask)];
            const fsm_thread *tn = &lane0[31u - (uint32_t)__builtin_clz(lane_mask)];
            if (t0->warp == tn->warp && lead_of(f, t0)->warp_step) {
                arrive_in_step(f, lane0, lane_mask, ev->u.arrive.barrier);
                return true;
            }
        }
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
            if (b->split) b->regular = 0; /* see barrier_arrive() */
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

/* ---- snapshots: copying the detector and describing its state canonically ----
 *
 * For state-space exploration (tests/oracle_deep): a search keeps one detector per depth,
 * copies the parent's state into the child before feeding a step, and merges prefixes whose
 * canonical descriptions (and schedules) are equal. */

bool gr_fsm_copy(gr_fsm *dst, const gr_fsm *src, gr_error *err) {
    if (dst == src) return true;
    if (dst->tpb != src->tpb || dst->ws != src->ws || dst->nblocks != src->nblocks ||
        dst->lockstep != src->lockstep)
        return gr_fail(err, GR_ERR_INTERNAL, "copying an FSM detector into one of another launch shape");
    memcpy(dst->threads, src->threads, src->nthreads * sizeof *src->threads);
    memcpy(dst->blocks, src->blocks, src->nblocks * sizeof *src->blocks);
    memcpy(dst->warp_regular, src->warp_regular, (size_t)src->nblocks * src->wpb);
    memcpy(dst->block_rel, src->block_rel, src->nblocks);
    dst->grid_rel = src->grid_rel;
    dst->ctx = src->ctx;
    dst->undecided = src->undecided;
    /* Shadow pages mirror the source's table slot for slot; dst keeps its page buffers. */
    if (dst->cap_pages != src->cap_pages) {
        shadow_page *pages = calloc(src->cap_pages, sizeof *pages);
        if (!pages) return gr_fail(err, GR_ERR_NOMEM, "out of memory copying FSM shadow pages");
        for (size_t i = 0; i < dst->cap_pages; i++) free(dst->pages[i].words);
        free(dst->pages);
        dst->pages = pages;
        dst->cap_pages = src->cap_pages;
    }
    for (size_t i = 0; i < src->cap_pages; i++) {
        shadow_page *d = &dst->pages[i];
        const shadow_page *s = &src->pages[i];
        if (!s->key) {
            free(d->words);
            *d = (shadow_page){0};
            continue;
        }
        if (!d->words && !(d->words = malloc(PAGE_WORDS * sizeof *d->words)))
            return gr_fail(err, GR_ERR_NOMEM, "out of memory copying FSM shadow pages");
        memcpy(d->words, s->words, PAGE_WORDS * sizeof *d->words);
        d->key = s->key;
        d->dirty = true; /* conservatively: the next reset clears it */
    }
    dst->npages = src->npages;
    dst->last = NULL;
    return true;
}

gr_fsm *gr_fsm_clone(const gr_fsm *src, gr_race_fn on_race, void *user, gr_error *err) {
    gr_fsm *f = gr_fsm_create(&src->geom, src->lockstep, on_race, user, err);
    if (f && !gr_fsm_copy(f, src, err)) {
        gr_fsm_destroy(f);
        return NULL;
    }
    return f;
}

/* Tripwires: a field added to these structs must also enter gr_fsm_canonical_state() (the copy
 * takes whole structs), or states that differ would be merged. */
_Static_assert(sizeof(fsm_thread) == 28 && sizeof(fsm_barrier) == 16 && sizeof(fsm_block) == 272,
               "per-thread/block state changed: update gr_fsm_canonical_state()");

typedef struct fsm_canon {
    uint64_t *out;
    size_t cap, n;
} fsm_canon;

static void fsm_canon_put(fsm_canon *c, uint64_t w) {
    if (c->n < c->cap) c->out[c->n] = w;
    c->n++;
}

/* Packs bytes eight to a word. */
static void fsm_canon_bytes(fsm_canon *c, const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = 0;
        for (size_t k = 0; k < 8 && i + k < n; k++) w |= (uint64_t)b[i + k] << (8 * k);
        fsm_canon_put(c, w);
    }
}

#define FSM_CANON_MAX_PAGES 64u

size_t gr_fsm_canonical_state(const gr_fsm *f, uint64_t *out, size_t cap) {
    fsm_canon c = {.out = out, .cap = cap};
    fsm_canon_put(&c, 0x46534du); /* a tag: "FSM" */
    fsm_canon_put(&c, f->nthreads);
    for (uint32_t i = 0; i < f->nthreads; i++) {
        const fsm_thread *t = &f->threads[i];
        fsm_canon_put(&c, (uint64_t)t->bar | (uint64_t)t->wbar << 32);
        fsm_canon_put(&c, (uint64_t)t->wep | (uint64_t)t->taint << 32 |
                              (uint64_t)t->fence_level << 40 | (uint64_t)t->strong_read << 48 |
                              (uint64_t)t->touched << 49 | (uint64_t)t->ever_touched << 50 |
                              (uint64_t)t->exited << 51 | (uint64_t)t->waiting << 56);
    }
    for (uint32_t i = 0; i < f->nblocks; i++) {
        const fsm_block *b = &f->blocks[i];
        fsm_canon_put(&c, (uint64_t)b->regular | (uint64_t)b->epochs << 1 |
                              (uint64_t)b->split << 2 | (uint64_t)b->exited_after_access << 3 |
                              (uint64_t)b->max_taint << 8 | (uint64_t)b->live << 32);
        fsm_canon_put(&c, b->pending);
        for (uint32_t id = 0; id < MAX_BARRIERS; id++) {
            const fsm_barrier *bar = &b->bar[id];
            if (!bar->arrived) continue;
            fsm_canon_put(&c, 1ull << 63 | (uint64_t)id << 56 | (uint64_t)bar->taint << 48 | bar->arrived);
            fsm_canon_put(&c, (uint64_t)bar->epoch | (uint64_t)bar->gone << 32);
        }
    }
    fsm_canon_bytes(&c, f->warp_regular, (size_t)f->nblocks * f->wpb);
    fsm_canon_bytes(&c, f->block_rel, f->nblocks);
    fsm_canon_put(&c, f->grid_rel);
    /* Pages in key order (the table's slot order depends on its history), nonzero words with
     * their index, less the instruction id (it only names the earlier access in reports). */
    size_t order[FSM_CANON_MAX_PAGES], n = 0;
    for (size_t s = 0; s < f->cap_pages; s++) {
        if (!f->pages[s].key) continue;
        if (n == FSM_CANON_MAX_PAGES) return 0;
        size_t i = n++;
        while (i > 0 && f->pages[order[i - 1]].key > f->pages[s].key) {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = s;
    }
    static const uint64_t zeros[32];
    for (size_t i = 0; i < n; i++) {
        const shadow_page *p = &f->pages[order[i]];
        bool any = false;
        for (uint32_t k = 0; k < PAGE_WORDS; k++) {
            /* Skip untouched runs 32 words at a time (pages are mostly empty). */
            if (k % 32 == 0 && !memcmp(&p->words[k], zeros, sizeof zeros)) {
                k += 31;
                continue;
            }
            uint64_t w = p->words[k] & ~GR_FSM_M_INSTR;
            if (!w) continue;
            /* Tags keep page keys and word indices apart (masked words stay below 2^51). */
            if (!any) fsm_canon_put(&c, 1ull << 63 | p->key);
            any = true;
            fsm_canon_put(&c, 1ull << 62 | k);
            fsm_canon_put(&c, w);
        }
    }
    return c.n;
}
