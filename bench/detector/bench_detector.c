/* bench_detector — detector throughput on one core and shadow size.
 *
 * A kernel-like event stream is generated once (64 blocks x 256 threads, warps of 32, events in
 * the order a backend reports them: warp by warp, lane by lane), then fed through
 * gr_detector_feed, the entry point the backends call for every event. Per iteration each
 * thread: reads its input element and a shared table entry of its warp, writes its shared slot,
 * barrier, reads two neighbours' slots, a two-step shared tree reduction with barriers, an
 * atomic add to a per-block histogram bin, a read-modify-write of its output element, barrier.
 * That mix has the cases that dominate real kernels: a thread re-accessing its own words, reads
 * ordered by the current barrier epoch, many readers of one word, atomics.
 *
 * Printed figures (medians of RUNS, CPU time of this thread):
 *   - the transition function alone on a simple loop (the figure the GPU runtime's per-access
 *     cost follows), with a plain store/load loop as its baseline;
 *   - FSM: accesses (shadow-word updates) per second through gr_detector_feed, and all events;
 *   - baseline in the same run: the same access stream written into a flat array (one store per
 *     access, no detection), the floor any shadow detector pays;
 *   - HB events per second on the same stream (fewer iterations: it is much slower);
 *   - shadow bytes per tracked byte.
 * Build with -DCMAKE_BUILD_TYPE=Release, no sanitizers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oracle/detector.h"
#include "oracle/fsm_rules.h"

#define RUNS 5
#define BLOCKS 64u
#define TPB 256u
#define WS 32u
#define NTHREADS (BLOCKS * TPB)

/* CPU time of this thread: the figure is per core, and other processes on the machine do not
 * count against it. */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v) {
    qsort(v, RUNS, sizeof *v, cmp);
    return v[RUNS / 2];
}

typedef struct stream {
    gr_event *ev;
    size_t n, cap, accesses;
} stream;

static gr_event *push(stream *s, uint8_t type) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1 << 16;
        gr_event *ev = realloc(s->ev, cap * sizeof *ev);
        if (!ev) return NULL;
        s->ev = ev;
        s->cap = cap;
    }
    gr_event *e = &s->ev[s->n++];
    memset(e, 0, sizeof *e);
    e->type = type;
    return e;
}

/* One instruction executed by every lane of every warp of block b (a backend's order). */
typedef struct instr {
    uint32_t id;
    uint8_t space, kind, op;
    uint64_t (*addr)(uint32_t block, uint32_t tid, uint32_t iter);
    uint32_t active_below; /* only threads with tid < this take part (0 = all) */
} instr;

static uint64_t a_input(uint32_t b, uint32_t t, uint32_t it) { (void)it; return 0x100000 + 4ull * (b * TPB + t); }
static uint64_t a_table(uint32_t b, uint32_t t, uint32_t it) { (void)b; (void)it; return 0x900000 + 4ull * ((t / WS) % 8); }
static uint64_t a_slot(uint32_t b, uint32_t t, uint32_t it) { (void)b; (void)it; return 4ull * t; }
static uint64_t a_next(uint32_t b, uint32_t t, uint32_t it) { (void)b; (void)it; return 4ull * ((t + 1) % TPB); }
static uint64_t a_prev(uint32_t b, uint32_t t, uint32_t it) { (void)b; (void)it; return 4ull * ((t + TPB - 1) % TPB); }
static uint64_t a_half(uint32_t b, uint32_t t, uint32_t it) { (void)b; (void)it; return 4ull * (t + TPB / 2); }
static uint64_t a_quarter(uint32_t b, uint32_t t, uint32_t it) { (void)b; (void)it; return 4ull * (t + TPB / 4); }
static uint64_t a_hist(uint32_t b, uint32_t t, uint32_t it) { return 0xa00000 + 4ull * ((b * 7 + t + it) % 64); }
static uint64_t a_out(uint32_t b, uint32_t t, uint32_t it) { (void)it; return 0x500000 + 4ull * (b * TPB + t); }

static void emit(stream *s, uint32_t b, const instr *in, uint32_t iter) {
    for (uint32_t t = 0; t < TPB; t++) {
        if (in->active_below && t >= in->active_below) continue;
        gr_event *e = push(s, GR_EV_ACCESS);
        if (!e) return;
        e->u.access = (gr_access){.addr = in->addr(b, t, iter), .thread = b * TPB + t,
                                  .instr = in->id, .space = in->space, .kind = in->kind,
                                  .size = 4, .op = in->op, .scope = GR_SCOPE_GPU};
        s->accesses++;
    }
}

static void barrier(stream *s, uint32_t b) {
    for (uint32_t t = 0; t < TPB; t++) {
        gr_event *e = push(s, GR_EV_BARRIER_ARRIVE);
        if (!e) return;
        e->u.arrive.thread = b * TPB + t;
        e->u.arrive.waits = true;
    }
    gr_event *e = push(s, GR_EV_BARRIER_COMPLETE);
    if (e) e->u.complete.block = b;
}

static void make_stream(stream *s, uint32_t iters) {
    const instr body1[] = {
        {1, GR_SPACE_GLOBAL, GR_ACCESS_READ, 0, a_input, 0},
        {2, GR_SPACE_GLOBAL, GR_ACCESS_READ, 0, a_table, 0},
        {3, GR_SPACE_SHARED, GR_ACCESS_WRITE, 0, a_slot, 0},
    };
    const instr body2[] = {
        {4, GR_SPACE_SHARED, GR_ACCESS_READ, 0, a_next, 0},
        {5, GR_SPACE_SHARED, GR_ACCESS_READ, 0, a_prev, 0},
        {6, GR_SPACE_SHARED, GR_ACCESS_READ, 0, a_slot, 0},
    };
    const instr red1[] = {
        {7, GR_SPACE_SHARED, GR_ACCESS_READ, 0, a_half, TPB / 2},
        {8, GR_SPACE_SHARED, GR_ACCESS_READ, 0, a_slot, TPB / 2},
        {9, GR_SPACE_SHARED, GR_ACCESS_WRITE, 0, a_slot, TPB / 2},
    };
    const instr red2[] = {
        {10, GR_SPACE_SHARED, GR_ACCESS_READ, 0, a_quarter, TPB / 4},
        {11, GR_SPACE_SHARED, GR_ACCESS_READ, 0, a_slot, TPB / 4},
        {12, GR_SPACE_SHARED, GR_ACCESS_WRITE, 0, a_slot, TPB / 4},
    };
    const instr tail[] = {
        {13, GR_SPACE_GLOBAL, GR_ACCESS_ATOMIC, GR_ATOM_ADD, a_hist, 0},
        {14, GR_SPACE_GLOBAL, GR_ACCESS_READ, 0, a_out, 0},
        {15, GR_SPACE_GLOBAL, GR_ACCESS_WRITE, 0, a_out, 0},
    };
    for (uint32_t it = 0; it < iters; it++)
        for (uint32_t b = 0; b < BLOCKS; b++) {
            for (size_t k = 0; k < 3; k++) emit(s, b, &body1[k], it);
            barrier(s, b);
            for (size_t k = 0; k < 3; k++) emit(s, b, &body2[k], it);
            barrier(s, b);
            for (size_t k = 0; k < 3; k++) emit(s, b, &red1[k], it);
            barrier(s, b);
            for (size_t k = 0; k < 3; k++) emit(s, b, &red2[k], it);
            barrier(s, b);
            for (size_t k = 0; k < 3; k++) emit(s, b, &tail[k], it);
            barrier(s, b);
        }
}

/* Feeds the stream; returns seconds, or -1 on a detector error. */
static double feed(const stream *s, gr_detector_kind kind, gr_detector_stats *st,
                   size_t *races) {
    gr_launch_geometry geom = {{BLOCKS, 1, 1}, {TPB, 1, 1}, WS};
    gr_error err = GR_ERROR_INIT;
    gr_detector_options opt = {.kind = kind};
    gr_detector *d = gr_detector_create(&geom, &opt, &err);
    if (!d) {
        gr_error_print(&err, stderr);
        return -1;
    }
    bool ok = true;
    double t0 = now();
    for (size_t i = 0; ok && i < s->n; i++) {
        const gr_event *e = &s->ev[i];
        ok = gr_detector_feed(d, e, &err);
    }
    double t1 = now();
    if (!ok) gr_error_print(&err, stderr);
    *st = gr_detector_get_stats(d);
    *races = gr_detector_races(d)->count;
    gr_detector_destroy(d);
    return ok ? t1 - t0 : -1;
}

/* The floor: each access stores its thread id into a flat word array (no detection). */
static double baseline(const stream *s, uint32_t *words, size_t nwords, uint64_t *sink) {
    double t0 = now();
    for (size_t i = 0; i < s->n; i++) {
        const gr_event *e = &s->ev[i];
        if (e->type != GR_EV_ACCESS) continue;
        uint64_t w = (e->u.access.addr >> 2) + (e->u.access.space == GR_SPACE_SHARED
                                                    ? (uint64_t)(e->u.access.thread / TPB) * TPB
                                                    : 0);
        words[w & (nwords - 1)] = e->u.access.thread;
    }
    double t1 = now();
    for (size_t i = 0; i < nwords; i += 4096) *sink += words[i];
    return t1 - t0;
}

/* The transition function alone (what the GPU runtime runs per access): rounds of "every
 * thread writes its word, barrier, reads its neighbour's word" over 1 Mi shadow words, and a
 * plain store/load loop over the same words as the baseline. Returns updates per second. */
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

int main(void) {
    stream s = {0}, small = {0};
    make_stream(&s, 8);
    make_stream(&small, 1);
    size_t nwords = 1u << 22;
    uint32_t *words = calloc(nwords, sizeof *words);
    if (!s.ev || !small.ev || !words) return 3;

    uint64_t *shadow = calloc(RAW_WORDS, sizeof *shadow);
    uint32_t *plain = calloc(RAW_WORDS, sizeof *plain);
    if (!shadow || !plain) return 3;
    double raw[RUNS], raw_base[RUNS];
    uint64_t raw_races = 0;
    for (int run = 0; run < RUNS; run++)
        raw[run] = raw_transitions(shadow, plain, &raw_base[run], &raw_races);
    printf("fsm transition function alone (gr_fsm_update; write, barrier, read neighbour over 1 Mi "
           "words): %.1f M updates/s; baseline plain store/load loop %.1f M/s; %llu races\n",
           median(raw) / 1e6, median(raw_base) / 1e6, (unsigned long long)raw_races);
    free(shadow);
    free(plain);

    double fsm_acc[RUNS], fsm_ev[RUNS], base[RUNS], hb_ev[RUNS];
    gr_detector_stats st = {0}, hb_st = {0};
    size_t races = 0, hb_races = 0;
    uint64_t sink = 0;
    for (int run = 0; run < RUNS; run++) {
        double t = feed(&s, GR_DETECTOR_FSM, &st, &races);
        if (t < 0) return 3;
        fsm_acc[run] = (double)s.accesses / t;
        fsm_ev[run] = (double)s.n / t;
        base[run] = (double)s.accesses / baseline(&s, words, nwords, &sink);
        double th = feed(&small, GR_DETECTOR_HB, &hb_st, &hb_races);
        if (th < 0) return 3;
        hb_ev[run] = (double)small.n / th;
    }
    printf("stream: %u blocks x %u threads, %zu events of which %zu accesses (8 iterations)\n",
           BLOCKS, TPB, s.n, s.accesses);
    printf("fsm through gr_detector_feed: %.1f M accesses/s (shadow-word updates), "
           "%.1f M events/s; %zu race signatures, %llu undecided\n",
           median(fsm_acc) / 1e6, median(fsm_ev) / 1e6, races, (unsigned long long)st.undecided);
    printf("baseline, same run: %.1f M accesses/s storing one word per access (no detection; "
           "checksum %llu)\n",
           median(base) / 1e6, (unsigned long long)(sink & 0xff));
    printf("hb: %.2f M events/s (1 iteration, %zu events); %zu race signatures\n",
           median(hb_ev) / 1e6, small.n, hb_races);
    printf("shadow: %zu bytes for %zu tracked bytes = %.2f shadow bytes per tracked byte\n",
           st.shadow_bytes, st.tracked_bytes,
           st.tracked_bytes ? (double)st.shadow_bytes / (double)st.tracked_bytes : 0.0);
    free(words);
    free(s.ev);
    free(small.ev);
    return races || hb_races || raw_races ? 1 : 0;
}
