/* bench_detector — detector throughput on one core and shadow size.
 *
 * A kernel-like workload is generated once (64 blocks x 256 threads, warps of 32) as the
 * simulator reports it: per warp, one record per instruction with the active lanes' addresses,
 * and per-thread barrier arrivals followed by one completion per barrier instance. Per
 * iteration each thread: reads its input element (coalesced) and a table entry shared by its
 * warp (broadcast), writes its slot of a shared tile, barrier, reads two neighbours' slots, its
 * own slot and the transposed slot of the tile, barrier, a two-step shared tree reduction with
 * barriers, an atomic add to a per-block histogram bin, a read-modify-write of its output
 * element (coalesced), 8-byte loads of a coefficient pair, barrier. That mix has what dominates
 * real kernels: threads re-accessing their own words, reads ordered by the current barrier
 * epoch, many readers of one word, atomics, multi-granule accesses.
 *
 * One table of medians of RUNS runs (CPU time of this thread, so other processes on the machine
 * do not count):
 *   - the transition function alone (gr_fsm_update on a simple loop over a flat array: what the
 *     GPU runtime's per-access cost follows), with a plain store/load loop as its floor;
 *   - FSM end to end, per access: every access as a gr_event through gr_detector_feed (the
 *     per-thread event path), all other events too;
 *   - FSM end to end, batched: what the simulator's adapter calls: each warp instruction
 *     through gr_detector_access_lanes, each warp's barrier arrivals through
 *     gr_detector_feed_lanes, completions through gr_detector_feed;
 *   - HB on the same workload (one iteration: it is much slower), batched entry point;
 *   - shadow bytes per tracked byte.
 * The two FSM paths must give the same races and undecided counts (checked).
 * Build with -DCMAKE_BUILD_TYPE=Release, no sanitizers.
 * Usage: bench_detector [raw|access|lanes|syncs|hb]... (default: all): some parts only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_clock.h"
#include "oracle/detector.h"
#include "oracle/fsm_rules.h"

#define RUNS 5
#define BLOCKS 64u
#define TPB 256u
#define WS 32u
#define ROUNDS 8u /* the workload (one iteration) is fed this many times to one detector */

/* CPU time of this thread: the figure is per core. */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One step of the workload: a synchronization event, or one instruction by a warp's lanes. */
typedef struct step {
    gr_event ev;        /* GR_EV_ACCESS: the prototype access (thread and addr unused) */
    uint32_t lane_mask; /* accesses and barrier arrivals: the lanes (0 = an event of its own) */
    uint32_t first_thread;
    size_t addr;        /* accesses only: index of lane 0's address in the address pool */
} step;

typedef struct workload {
    step *steps;
    size_t nsteps, cap;
    uint64_t *addr;
    size_t naddr, addr_cap;
    gr_event *flat;     /* the same workload as per-thread events, in the same order */
    size_t nflat, accesses;
} workload;

static void *grow(void *p, size_t *cap, size_t n, size_t elem) {
    if (n < *cap) return p;
    size_t c = *cap ? 2 * *cap : 4096;
    void *q = realloc(p, c * elem);
    if (!q) {
        free(p);
        return NULL;
    }
    *cap = c;
    return q;
}

static step *push_step(workload *w) {
    w->steps = grow(w->steps, &w->cap, w->nsteps, sizeof *w->steps);
    if (!w->steps) return NULL;
    step *s = &w->steps[w->nsteps++];
    memset(s, 0, sizeof *s);
    return s;
}

/* One instruction executed by every warp of block b (a backend's order). */
typedef struct instr {
    uint32_t id;
    uint8_t space, kind, op, size;
    uint64_t (*addr)(uint32_t block, uint32_t tid, uint32_t iter);
    uint32_t active_below; /* only threads with tid < this take part (0 = all) */
} instr;

static uint64_t a_input(uint32_t b, uint32_t t, uint32_t it) { (void)it; return 0x100000 + 4ull * (b * TPB + t); }
static uint64_t a_table(uint32_t b, uint32_t t, uint32_t it) { (void)b; (void)it; return 0x900000 + 4ull * ((t / WS) % 8); }
static uint64_t a_slot(uint32_t b, uint32_t t, uint32_t it) { (void)b; (void)it; return 4ull * t; }
static uint64_t a_next(uint32_t b, uint32_t t, uint32_t it) { (void)b; (void)it; return 4ull * ((t + 1) % TPB); }
static uint64_t a_prev(uint32_t b, uint32_t t, uint32_t it) { (void)b; (void)it; return 4ull * ((t + TPB - 1) % TPB); }
static uint64_t a_transposed(uint32_t b, uint32_t t, uint32_t it) { (void)b; (void)it; return 4ull * ((t % 16) * 16 + t / 16); }
static uint64_t a_half(uint32_t b, uint32_t t, uint32_t it) { (void)b; (void)it; return 4ull * (t + TPB / 2); }
static uint64_t a_quarter(uint32_t b, uint32_t t, uint32_t it) { (void)b; (void)it; return 4ull * (t + TPB / 4); }
static uint64_t a_hist(uint32_t b, uint32_t t, uint32_t it) { return 0xa00000 + 4ull * ((b * 7 + t + it * 5) % 64); }
static uint64_t a_out(uint32_t b, uint32_t t, uint32_t it) { (void)it; return 0x500000 + 4ull * (b * TPB + t); }
static uint64_t a_coef(uint32_t b, uint32_t t, uint32_t it) { (void)b; (void)it; return 0xc00000 + 8ull * (t % 64); }

static bool emit(workload *w, uint32_t b, const instr *in, uint32_t iter) {
    for (uint32_t warp = 0; warp < TPB / WS; warp++) {
        uint32_t mask = 0;
        for (uint32_t l = 0; l < WS; l++) {
            uint32_t t = warp * WS + l;
            if (!in->active_below || t < in->active_below) mask |= 1u << l;
        }
        if (!mask) continue;
        step *s = push_step(w);
        w->addr = grow(w->addr, &w->addr_cap, w->naddr + WS, sizeof *w->addr);
        if (!s || !w->addr) return false;
        s->ev.type = GR_EV_ACCESS;
        s->ev.u.access = (gr_access){.instr = in->id, .space = in->space, .kind = in->kind,
                                     .size = in->size, .op = in->op, .scope = GR_SCOPE_GPU};
        s->lane_mask = mask;
        s->first_thread = b * TPB + warp * WS;
        s->addr = w->naddr;
        for (uint32_t l = 0; l < WS; l++) w->addr[w->naddr + l] = in->addr(b, warp * WS + l, iter);
        w->naddr += WS;
    }
    return true;
}

/* __syncthreads: every warp's lanes arrive (one record per warp), then the completion. */
static bool barrier(workload *w, uint32_t b) {
    for (uint32_t warp = 0; warp < TPB / WS; warp++) {
        step *s = push_step(w);
        if (!s) return false;
        s->ev.type = GR_EV_BARRIER_ARRIVE;
        s->ev.u.arrive.waits = true;
        s->lane_mask = 0xffffffffu;
        s->first_thread = b * TPB + warp * WS;
    }
    step *s = push_step(w);
    if (!s) return false;
    s->ev.type = GR_EV_BARRIER_COMPLETE;
    s->ev.u.complete.block = b;
    return true;
}

/* Expands the lane groups into per-thread events (the per-access path's input). */
static bool flatten(workload *w) {
    size_t n = 0;
    for (size_t i = 0; i < w->nsteps; i++)
        n += w->steps[i].lane_mask ? (size_t)__builtin_popcount(w->steps[i].lane_mask) : 1u;
    w->flat = malloc(n * sizeof *w->flat);
    if (!w->flat) return false;
    for (size_t i = 0; i < w->nsteps; i++) {
        const step *s = &w->steps[i];
        if (!s->lane_mask) {
            w->flat[w->nflat++] = s->ev;
            continue;
        }
        for (uint32_t m = s->lane_mask; m; m &= m - 1) {
            uint32_t l = (uint32_t)__builtin_ctz(m);
            gr_event *e = &w->flat[w->nflat++];
            *e = s->ev;
            if (s->ev.type == GR_EV_BARRIER_ARRIVE) {
                e->u.arrive.thread = s->first_thread + l;
                continue;
            }
            e->u.access.thread = s->first_thread + l;
            e->u.access.addr = w->addr[s->addr + l];
            w->accesses++;
        }
    }
    return true;
}

static bool make_workload(workload *w, uint32_t iters) {
    enum { G = GR_SPACE_GLOBAL, S = GR_SPACE_SHARED, R = GR_ACCESS_READ, W = GR_ACCESS_WRITE };
    const instr load[] = {
        {1, G, R, 0, 4, a_input, 0},
        {2, G, R, 0, 4, a_table, 0},
        {3, S, W, 0, 4, a_slot, 0},
    };
    const instr neighbours[] = {
        {4, S, R, 0, 4, a_next, 0},
        {5, S, R, 0, 4, a_prev, 0},
        {6, S, R, 0, 4, a_slot, 0},
        {7, S, R, 0, 4, a_transposed, 0},
    };
    const instr red1[] = {
        {8, S, R, 0, 4, a_half, TPB / 2},
        {9, S, R, 0, 4, a_slot, TPB / 2},
        {10, S, W, 0, 4, a_slot, TPB / 2},
    };
    const instr red2[] = {
        {11, S, R, 0, 4, a_quarter, TPB / 4},
        {12, S, R, 0, 4, a_slot, TPB / 4},
        {13, S, W, 0, 4, a_slot, TPB / 4},
    };
    const instr tail[] = {
        {14, G, GR_ACCESS_ATOMIC, GR_ATOM_ADD, 4, a_hist, 0},
        {15, G, R, 0, 4, a_out, 0},
        {16, G, W, 0, 4, a_out, 0},
        {17, G, R, 0, 8, a_coef, 0},
    };
#define EMIT_ALL(list)                                                  \
    for (size_t k = 0; k < sizeof list / sizeof list[0]; k++)           \
        if (!emit(w, b, &list[k], it)) return false;
    for (uint32_t it = 0; it < iters; it++)
        for (uint32_t b = 0; b < BLOCKS; b++) {
            EMIT_ALL(load);
            if (!barrier(w, b)) return false;
            EMIT_ALL(neighbours);
            if (!barrier(w, b)) return false;
            EMIT_ALL(red1);
            if (!barrier(w, b)) return false;
            EMIT_ALL(red2);
            if (!barrier(w, b)) return false;
            EMIT_ALL(tail);
            if (!barrier(w, b)) return false;
        }
#undef EMIT_ALL
    return flatten(w);
}

static void free_workload(workload *w) {
    free(w->steps);
    free(w->addr);
    free(w->flat);
}

typedef struct outcome {
    double seconds; /* < 0: the detector failed */
    gr_detector_stats stats;
    size_t signatures;
    uint64_t occurrences; /* sum of the signatures' counts */
} outcome;

/* Feeds the workload per access (batched = false) or per lane group; times the feeding only.
 * syncs_only: the synchronization events alone (what they cost of the end-to-end figures). */
static outcome run(const workload *w, uint32_t rounds, gr_detector_kind kind, bool batched,
                   bool syncs_only) {
    outcome o = {.seconds = -1};
    gr_launch_geometry geom = {{BLOCKS, 1, 1}, {TPB, 1, 1}, WS};
    gr_error err = GR_ERROR_INIT;
    gr_detector_options opt = {.kind = kind};
    gr_detector *d = gr_detector_create(&geom, &opt, &err);
    if (!d) {
        gr_error_print(&err, stderr);
        return o;
    }
    bool ok = true;
    double t0 = now();
    for (uint32_t round = 0; ok && round < rounds; round++) {
    if (batched) {
        for (size_t i = 0; ok && i < w->nsteps; i++) {
            const step *s = &w->steps[i];
            if (syncs_only && s->ev.type == GR_EV_ACCESS) continue;
            if (s->ev.type == GR_EV_ACCESS)
                ok = gr_detector_access_lanes(d, &s->ev.u.access, s->lane_mask, s->first_thread,
                                              &w->addr[s->addr], &err);
            else if (s->lane_mask)
                ok = gr_detector_feed_lanes(d, &s->ev, s->lane_mask, s->first_thread, &err);
            else
                ok = gr_detector_feed(d, &s->ev, &err);
        }
    } else {
        for (size_t i = 0; ok && i < w->nflat; i++) ok = gr_detector_feed(d, &w->flat[i], &err);
    }
    }
    double t1 = now();
    if (!ok) {
        gr_error_print(&err, stderr);
    } else {
        o.seconds = t1 - t0;
        o.stats = gr_detector_get_stats(d);
        const gr_race_set *set = gr_detector_races(d);
        o.signatures = set->count;
        for (size_t i = 0; i < set->count; i++) o.occurrences += set->races[i].count;
    }
    gr_detector_destroy(d);
    return o;
}

/* The transition function alone (what the GPU runtime runs per access): rounds of "every
 * thread writes its word, barrier, reads its neighbour's word" over 1 Mi shadow words, and a
 * plain store/load loop over the same words as the floor. Returns updates per second. */
#define RAW_WORDS (1u << 20)
#define RAW_ROUNDS 16
static double raw_transitions(uint64_t *shadow, uint32_t *plain, double *base_rate,
                              uint64_t *races) {
    gr_fsm_ctx ctx = {.threads_per_block = 256, .warp_size = 32, .block_regular = 1,
                      .warp_regular = 1, .tpb_recip = gr_fsm_reciprocal(256),
                      .ws_recip = gr_fsm_reciprocal(32)};
    double t0 = now();
    for (uint32_t round = 0; round < RAW_ROUNDS; round++) {
        for (uint32_t i = 0; i < RAW_WORDS; i++) {
            gr_fsm_access a = {.thread = i & (GR_FSM_MAX_THREADS - 1), .bar = 2 * round,
                               .instr = 1, .bytes = 0xf, .write = 1};
            gr_fsm_result r;
            shadow[i] = gr_fsm_update(shadow[i], &a, &ctx, &r);
            *races += r.action == GR_FSM_ACT_RACE;
        }
        for (uint32_t i = 0; i < RAW_WORDS; i++) {
            gr_fsm_access a = {.thread = (i & ~255u) | ((i + 1) & 255u), /* same block */
                               .bar = 2 * round + 1, .instr = 2, .bytes = 0xf};
            gr_fsm_result r;
            shadow[i] = gr_fsm_update(shadow[i], &a, &ctx, &r);
            *races += r.action == GR_FSM_ACT_RACE;
        }
    }
    double t1 = now();
    for (uint32_t round = 0; round < RAW_ROUNDS; round++) {
        for (uint32_t i = 0; i < RAW_WORDS; i++) plain[i] = round + i;
        for (uint32_t i = 0; i < RAW_WORDS; i++) *races += plain[i] == 0xffffffffu;
        __asm__ volatile("" : : "r"(plain) : "memory");
    }
    double t2 = now();
    *base_rate = 2.0 * RAW_ROUNDS * RAW_WORDS / (t2 - t1);
    return 2.0 * RAW_ROUNDS * RAW_WORDS / (t1 - t0);
}

static bool wanted(int argc, char **argv, const char *part) {
    if (argc < 2) return true;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], part)) return true;
    return false;
}

static void row(const char *what, double rate, const char *unit, const char *note) {
    if (rate > 0) printf("%-44s %10.1f %-22s %s\n", what, rate / 1e6, unit, note);
    else printf("%-44s %10s %-22s %s\n", what, "-", unit, "(not run)");
}

int main(int argc, char **argv) {
    workload wl = {0};
    if (!make_workload(&wl, 1)) return 3;
    double raw[RUNS] = {0}, raw_base[RUNS] = {0};
    double acc[RUNS] = {0}, lanes[RUNS] = {0}, hb[RUNS] = {0}, syncs[RUNS] = {0};
    uint64_t raw_races = 0;
    outcome o_acc = {0}, o_lanes = {0}, o_hb = {0};
    int status = 0;

    if (wanted(argc, argv, "raw")) {
        uint64_t *shadow = calloc(RAW_WORDS, sizeof *shadow);
        uint32_t *plain = calloc(RAW_WORDS, sizeof *plain);
        if (!shadow || !plain) return 3;
        for (int r = 0; r < RUNS; r++) raw[r] = raw_transitions(shadow, plain, &raw_base[r], &raw_races);
        free(shadow);
        free(plain);
    }
    for (int r = 0; r < RUNS; r++) {
        if (wanted(argc, argv, "access")) {
            o_acc = run(&wl, ROUNDS, GR_DETECTOR_FSM, false, false);
            if (o_acc.seconds < 0) return 3;
            acc[r] = (double)wl.accesses * ROUNDS / o_acc.seconds;
        }
        if (wanted(argc, argv, "lanes")) {
            o_lanes = run(&wl, ROUNDS, GR_DETECTOR_FSM, true, false);
            if (o_lanes.seconds < 0) return 3;
            lanes[r] = (double)wl.accesses * ROUNDS / o_lanes.seconds;
        }
        if (wanted(argc, argv, "syncs")) {
            outcome o = run(&wl, ROUNDS, GR_DETECTOR_FSM, true, true);
            if (o.seconds < 0) return 3;
            syncs[r] = o.seconds;
        }
        if (wanted(argc, argv, "hb")) {
            o_hb = run(&wl, 1, GR_DETECTOR_HB, true, false);
            if (o_hb.seconds < 0) return 3;
            hb[r] = (double)wl.nflat / o_hb.seconds;
        }
    }
    printf("workload: %u blocks x %u threads, one iteration fed %u times: %zu per-thread events of "
           "which %zu accesses, or %zu lane groups and sync events, per time\n",
           BLOCKS, TPB, ROUNDS, wl.nflat, wl.accesses, wl.nsteps);
    printf("medians of %d runs, CPU time of one thread\n\n", RUNS);
    printf("%-44s %10s %-22s %s\n", "", "M/s", "unit", "");
    row("fsm transition alone (gr_fsm_update)", gr_bench_median(raw, RUNS), "updates/s",
        "write, barrier, read neighbour over 1 Mi words");
    row("  floor: plain store/load loop", gr_bench_median(raw_base, RUNS), "words/s", "");
    row("fsm end to end, per access (feed)", gr_bench_median(acc, RUNS), "accesses/s",
        "gr_detector_feed per thread, syncs included");
    double lanes_rate = gr_bench_median(lanes, RUNS);
    row("fsm end to end, batched (access_lanes)", lanes_rate, "accesses/s",
        "access_lanes/feed_lanes per warp, syncs included");
    double sync_s = gr_bench_median(syncs, RUNS);
    if (sync_s > 0 && lanes_rate > 0)
        printf("%-44s %10.1f %-22s %s\n", "  of which synchronization events", 
               100.0 * sync_s * lanes_rate / ((double)wl.accesses * ROUNDS), "% of the time",
               "(the same events fed alone)");
    row("hb, same mix (1 iteration)", gr_bench_median(hb, RUNS), "events/s",
        "per-thread events; accesses via access_lanes");
    const gr_detector_stats *st = o_lanes.stats.shadow_bytes ? &o_lanes.stats : &o_acc.stats;
    printf("%-44s %10.2f %-22s %zu shadow bytes for %zu tracked bytes\n",
           "fsm shadow per tracked byte", st->tracked_bytes ? (double)st->shadow_bytes / (double)st->tracked_bytes : 0.0,
           "bytes/byte", st->shadow_bytes, st->tracked_bytes);
    printf("\nverdicts: per access %zu signatures / %llu occurrences / %llu undecided; batched %zu / "
           "%llu / %llu; hb %zu signatures\n",
           o_acc.signatures, (unsigned long long)o_acc.occurrences,
           (unsigned long long)o_acc.stats.undecided, o_lanes.signatures,
           (unsigned long long)o_lanes.occurrences, (unsigned long long)o_lanes.stats.undecided,
           o_hb.signatures);
    if (acc[0] > 0 && lanes[0] > 0 &&
        (o_acc.signatures != o_lanes.signatures || o_acc.occurrences != o_lanes.occurrences ||
         o_acc.stats.undecided != o_lanes.stats.undecided ||
         o_acc.stats.accesses != o_lanes.stats.accesses)) {
        printf("MISMATCH between the per-access and batched paths\n");
        status = 2;
    }
    if (raw_races || o_acc.signatures || o_lanes.signatures || o_hb.signatures) status = status ? status : 1;
    free_workload(&wl);
    return status;
}
