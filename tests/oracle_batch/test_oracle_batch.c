/* The batched access entry point (gr_detector_access_lanes) against the per-lane one
 * (gr_detector_access): on random warp-level programs both must produce the very same race
 * occurrences, in the same order, the same undecided count and the same statistics.
 *
 * Programs are what a simulator reports: lane groups of one instruction (coalesced, broadcast,
 * neighbour, transposed, random and misaligned addresses; 1..16 bytes; reads, writes, atomics,
 * volatile accesses; global and shared memory), barriers (all threads, or a producer warp that
 * only arrives), partial and full warp syncs, lockstep steps, fences and thread exits. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/detector.h"

#define MAX_OCC 100000

typedef struct occurrences {
    gr_race r[MAX_OCC];
    size_t n;
    size_t dropped;
} occurrences;

static void record(void *user, const gr_race *race) {
    occurrences *o = user;
    if (o->n < MAX_OCC) o->r[o->n++] = *race;
    else o->dropped++;
}

/* One step of a program: a synchronization event or one instruction of a lane group. */
typedef struct step {
    gr_event ev;
    uint32_t lane_mask, first_thread;
    uint64_t addr[32];
} step;

typedef struct program {
    gr_launch_geometry geom;
    step *steps;
    size_t n, cap;
} program;

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}
static uint32_t rnd(uint64_t *s, uint32_t n) { return (uint32_t)(rng_next(s) % n); }

static step *push(program *p) {
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 256;
        p->steps = realloc(p->steps, p->cap * sizeof *p->steps);
        cr_assert_not_null(p->steps);
    }
    step *s = &p->steps[p->n++];
    memset(s, 0, sizeof *s);
    return s;
}

static void sync_event(program *p, gr_event ev) { push(p)->ev = ev; }

/* A random program of `len` steps over `blocks` blocks of `tpb` threads, warps of `ws`. */
static void make_program(program *p, uint64_t *seed, uint32_t blocks, uint32_t tpb, uint32_t ws,
                         size_t len) {
    memset(p, 0, sizeof *p);
    p->geom = (gr_launch_geometry){{blocks, 1, 1}, {tpb, 1, 1}, ws};
    uint32_t nthreads = blocks * tpb, wpb = (tpb + ws - 1) / ws;
    bool *exited = calloc(nthreads, 1);
    cr_assert_not_null(exited);
    uint32_t ninstr = 4 + rnd(seed, 12);
    while (p->n < len) {
        uint32_t b = rnd(seed, blocks), choice = rnd(seed, 100);
        uint32_t base = b * tpb;
        if (choice < 75) {
            uint32_t w = rnd(seed, wpb), first = w * ws;
            uint32_t lanes = tpb - first < ws ? tpb - first : ws, mask = 0;
            uint32_t shape = rnd(seed, 4);
            for (uint32_t l = 0; l < lanes; l++)
                if (!exited[base + first + l] &&
                    (shape != 0 || rnd(seed, 3) != 0) && (shape != 1 || l % 2 == 0))
                    mask |= 1u << l;
            if (!mask) continue;
            step *s = push(p);
            gr_access *a = &s->ev.u.access;
            s->ev.type = GR_EV_ACCESS;
            s->lane_mask = mask;
            s->first_thread = base + first;
            a->instr = 1 + rnd(seed, ninstr);
            a->space = rnd(seed, 3) == 0 ? GR_SPACE_GLOBAL : GR_SPACE_SHARED;
            if (rnd(seed, 40) == 0) a->space = GR_SPACE_LOCAL;
            static const uint8_t sizes[] = {4, 4, 4, 4, 1, 2, 8, 8, 16};
            a->size = sizes[rnd(seed, sizeof sizes)];
            uint32_t k = rnd(seed, 20);
            if (k < 9) {
                a->kind = GR_ACCESS_READ;
            } else if (k < 16) {
                a->kind = GR_ACCESS_WRITE;
            } else if (k < 19) {
                a->kind = GR_ACCESS_ATOMIC;
                a->op = (uint8_t)rnd(seed, GR_ATOM_DEC + 1);
                a->scope = (uint8_t)rnd(seed, 3);
                a->sem = (uint8_t)rnd(seed, 4);
            } else {
                a->kind = rnd(seed, 2) ? GR_ACCESS_READ : GR_ACCESS_WRITE;
                a->flags = GR_ACCESS_VOLATILE;
            }
            /* Small regions, so that lanes and warps meet on granules. */
            uint64_t region = (uint64_t)rnd(seed, 3) * 4096 + (rnd(seed, 8) == 0 ? 4090 : 0);
            uint32_t pattern = rnd(seed, 6), stride = a->size;
            for (uint32_t l = 0; l < 32; l++) {
                uint64_t off;
                switch (pattern) {
                case 0: off = (uint64_t)l * stride; break;                 /* coalesced */
                case 1: off = 0; break;                                    /* broadcast */
                case 2: off = (uint64_t)((l + 1) % lanes) * stride; break; /* neighbour */
                case 3: off = (uint64_t)((l % 4) * 8 + l / 4) * stride; break; /* transposed */
                case 4: off = rnd(seed, 64); break;                        /* misaligned */
                default: off = (uint64_t)rnd(seed, 16) * stride; break;    /* collisions */
                }
                s->addr[l] = region + off;
            }
        } else if (choice < 83) {
            /* A barrier: every live thread waits, or (named barrier 1) warp 0 only arrives. */
            bool producer = wpb > 1 && rnd(seed, 3) == 0;
            uint32_t id = producer ? 1 : 0, live = 0;
            for (uint32_t t = 0; t < tpb; t++) {
                if (exited[base + t]) continue;
                live++;
                gr_event ev = {.type = GR_EV_BARRIER_ARRIVE};
                ev.u.arrive.thread = base + t;
                ev.u.arrive.barrier = id;
                ev.u.arrive.waits = !(producer && t < ws);
                sync_event(p, ev);
            }
            if (live) {
                gr_event ev = {.type = GR_EV_BARRIER_COMPLETE};
                ev.u.complete.block = b;
                ev.u.complete.barrier = id;
                sync_event(p, ev);
            }
        } else if (choice < 91) {
            gr_event ev = {.type = rnd(seed, 2) ? GR_EV_WARP_SYNC : GR_EV_WARP_STEP};
            ev.u.warp.block = b;
            ev.u.warp.warp = rnd(seed, wpb);
            ev.u.warp.mask = rnd(seed, 2) ? 0xffffffffu : (uint32_t)rng_next(seed);
            sync_event(p, ev);
        } else if (choice < 97) {
            gr_event ev = {.type = GR_EV_FENCE};
            ev.u.fence.thread = base + rnd(seed, tpb);
            ev.u.fence.scope = (uint8_t)rnd(seed, 2);
            ev.u.fence.sem = GR_SEM_SC;
            sync_event(p, ev);
        } else {
            uint32_t t = base + rnd(seed, tpb);
            if (exited[t]) continue;
            exited[t] = true;
            gr_event ev = {.type = GR_EV_THREAD_EXIT};
            ev.u.exit.thread = t;
            sync_event(p, ev);
        }
    }
    free(exited);
}

typedef struct outcome {
    occurrences *occ;
    gr_detector_stats stats;
    size_t signatures;
    bool ok;
    int status;
} outcome;

/* Runs the program, accesses lane by lane or as lane groups. */
static outcome run(const program *p, gr_detector_kind kind, gr_warp_model model, bool batched) {
    outcome o = {.occ = calloc(1, sizeof(occurrences)), .ok = true};
    cr_assert_not_null(o.occ);
    gr_detector_options opt = {.kind = kind, .warp_model = model, .on_race = record,
                               .user = o.occ};
    gr_error err = GR_ERROR_INIT;
    gr_detector *d = gr_detector_create(&p->geom, &opt, &err);
    cr_assert_not_null(d, "%s", err.message ? err.message : "?");
    for (size_t i = 0; o.ok && i < p->n; i++) {
        const step *s = &p->steps[i];
        if (s->ev.type != GR_EV_ACCESS) {
            o.ok = gr_detector_feed(d, &s->ev, &err);
        } else if (batched) {
            o.ok = gr_detector_access_lanes(d, &s->ev.u.access, s->lane_mask, s->first_thread,
                                            s->addr, &err);
        } else {
            gr_access a = s->ev.u.access;
            for (uint32_t m = s->lane_mask; o.ok && m; m &= m - 1) {
                uint32_t l = (uint32_t)__builtin_ctz(m);
                a.thread = s->first_thread + l;
                a.addr = s->addr[l];
                o.ok = gr_detector_access(d, &a, &err);
            }
        }
    }
    o.status = o.ok ? 0 : err.status;
    gr_error_clear(&err);
    gr_event end = {.type = GR_EV_KERNEL_END};
    if (o.ok) o.ok = gr_detector_feed(d, &end, &err);
    o.stats = gr_detector_get_stats(d);
    o.signatures = gr_detector_races(d)->count;
    gr_detector_destroy(d);
    return o;
}

static void check_same(const program *p, gr_detector_kind kind, gr_warp_model model,
                       const char *what, uint64_t *total_races) {
    outcome a = run(p, kind, model, false), b = run(p, kind, model, true);
    cr_assert_eq(a.ok, b.ok, "%s: per-lane ok %d, batched ok %d", what, a.ok, b.ok);
    cr_assert_eq(a.status, b.status, "%s: error status", what);
    cr_assert_eq(a.occ->dropped, 0);
    cr_assert_eq(a.occ->n, b.occ->n, "%s: %zu race occurrences lane by lane, %zu batched", what,
                 a.occ->n, b.occ->n);
    for (size_t i = 0; i < a.occ->n; i++) {
        const gr_race *x = &a.occ->r[i], *y = &b.occ->r[i];
        cr_assert(x->kind == y->kind && x->cause == y->cause && x->space == y->space &&
                      x->flags == y->flags && x->block == y->block && x->addr == y->addr &&
                      x->first_thread == y->first_thread &&
                      x->second_thread == y->second_thread &&
                      x->first_instr == y->first_instr && x->second_instr == y->second_instr,
                  "%s: occurrence %zu differs: threads %u/%u vs %u/%u, addr %llu vs %llu, kind "
                  "%u vs %u",
                  what, i, x->first_thread, x->second_thread, y->first_thread, y->second_thread,
                  (unsigned long long)x->addr, (unsigned long long)y->addr, x->kind, y->kind);
    }
    cr_assert_eq(a.signatures, b.signatures, "%s: signatures", what);
    cr_assert_eq(a.stats.undecided, b.stats.undecided, "%s: undecided %llu vs %llu", what,
                 (unsigned long long)a.stats.undecided, (unsigned long long)b.stats.undecided);
    if (a.ok) {
        cr_assert_eq(a.stats.accesses, b.stats.accesses, "%s: accesses", what);
        cr_assert_eq(a.stats.events, b.stats.events, "%s: events", what);
        cr_assert_eq(a.stats.races, b.stats.races, "%s: races", what);
        cr_assert_eq(a.stats.shadow_bytes, b.stats.shadow_bytes, "%s: shadow", what);
    }
    *total_races += a.occ->n;
    free(a.occ);
    free(b.occ);
}

typedef struct shape {
    uint32_t blocks, tpb, ws;
} shape;

static void random_programs(gr_detector_kind kind, int count, size_t len, uint64_t seed0,
                            uint64_t *races, uint64_t *undecided_programs) {
    static const shape shapes[] = {
        {2, 64, 32}, {3, 96, 32}, {2, 40, 32}, {4, 32, 32}, {2, 24, 8}, {3, 10, 4}, {1, 128, 32},
    };
    for (int i = 0; i < count; i++) {
        uint64_t seed = seed0 + (uint64_t)i * 0x9e3779b97f4a7c15ull;
        const shape *sh = &shapes[(size_t)i % (sizeof shapes / sizeof shapes[0])];
        program p;
        make_program(&p, &seed, sh->blocks, sh->tpb, sh->ws, len);
        char what[96];
        snprintf(what, sizeof what, "program %d (%ux%u, warp %u)", i, sh->blocks, sh->tpb,
                 sh->ws);
        check_same(&p, kind, GR_WARP_ITS, what, races);
        check_same(&p, kind, GR_WARP_LOCKSTEP, what, races);
        outcome o = run(&p, kind, GR_WARP_ITS, true);
        *undecided_programs += o.stats.undecided != 0;
        free(o.occ);
        free(p.steps);
    }
}

Test(oracle_batch, fsm_random_programs_same_races, .timeout = 120) {
    uint64_t races = 0, undecided = 0;
    random_programs(GR_DETECTOR_FSM, 1500, 160, 0x1234567ull, &races, &undecided);
    /* The programs must exercise reporting and undecided cases, or the comparison says little. */
    cr_assert_gt(races, 1000, "only %llu race occurrences", (unsigned long long)races);
    cr_assert_gt(undecided, 10, "only %llu programs with undecided accesses",
                 (unsigned long long)undecided);
    cr_log_info("fsm: %llu race occurrences compared, %llu programs with undecided accesses",
                (unsigned long long)races, (unsigned long long)undecided);
}

Test(oracle_batch, hb_random_programs_same_races, .timeout = 120) {
    uint64_t races = 0, undecided = 0;
    random_programs(GR_DETECTOR_HB, 150, 100, 0x7654321ull, &races, &undecided);
    cr_assert_gt(races, 100);
}

/* A lane group naming threads past the launch fails at the same lane, after the same races. */
Test(oracle_batch, bad_lanes_fail_like_lane_by_lane) {
    program p = {.geom = {{1, 1, 1}, {48, 1, 1}, 32}};
    for (int k = 0; k < 2; k++) {
        step *s = push(&p);
        s->ev.type = GR_EV_ACCESS;
        s->ev.u.access = (gr_access){.instr = 7, .space = GR_SPACE_SHARED,
                                     .kind = GR_ACCESS_WRITE, .size = 4};
        s->first_thread = 32;
        s->lane_mask = k == 0 ? 0xffffu : 0xffffffffu; /* the second names threads 48..63 */
        for (uint32_t l = 0; l < 32; l++) s->addr[l] = 4 * (l % 3);
    }
    uint64_t races = 0;
    check_same(&p, GR_DETECTOR_FSM, GR_WARP_ITS, "bad lanes", &races);
    check_same(&p, GR_DETECTOR_HB, GR_WARP_ITS, "bad lanes (hb)", &races);
    cr_assert_gt(races, 0);
    free(p.steps);
}
